"""ASGI entry points.

`events_application`: the `events` role, the event server alone (events/): the waiting reads,
which the reverse proxy routes to it (deploy/nginx.conf). `application`: a newcomer's single server
(`scripts/start`): the event server's routes, and everything else handed to Django's own ASGI
handler, on one port. The `web` role is WSGI (config/wsgi.py).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

django_application = get_asgi_application()  # sets Django up before the event server is imported

from events.app import build  # noqa: E402

events_application = build()
application = build(fallback=django_application)
