import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

from infra.request_body import drain_unread_body  # noqa: E402 - after the settings module is chosen

# An unread request body is read before the answer leaves, so the connection stays usable for the
# next request a proxy sends on it (infra/request_body.py).
application = drain_unread_body(get_wsgi_application())
