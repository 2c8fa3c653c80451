"""The service's infrastructure, shared by every app: the API's plumbing (infra/api: errors, the
exception handler, parsers, renderers, pagination, the schema's hooks), wake-ups, request context and
logs, metrics, the probes, and the model fields and statements the move path writes with. `config`
holds only the settings, the URL root, the entry points and server configurations, and the Celery app.
"""
