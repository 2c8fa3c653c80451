"""The ASGI application: Django, plus the lifespan protocol that Django itself does not speak.

At lifespan startup (the server has installed its signal handlers by then) the stop signals are
chained so that waiting long-polls are released on SIGTERM (config/shutdown.py). A server run with
`--lifespan off` still gets them chained on the first request. Each request borrows a reused worker
thread for its synchronous part (config/request_threads.py). The game log's plain reads are answered
before Django (config/log_fast_lane.py); API requests to synchronous views are handled in one
thread hop by Django's synchronous handler (config/sync_lane.py); everything else goes to Django's
ASGI handler.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

django_application = get_asgi_application()

from config import log_fast_lane, shutdown, sync_lane  # noqa: E402 - after Django is set up
from config.request_threads import request_thread  # noqa: E402


async def _lifespan(receive, send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            shutdown.install_signal_handlers()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            shutdown.request()
            await send({"type": "lifespan.shutdown.complete"})
            return


async def application(scope, receive, send):
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    shutdown.install_signal_handlers()
    async with request_thread():
        if scope["type"] == "http":
            scope = await log_fast_lane.answer(scope, send)
            if scope is None:
                return  # answered by the lane
            if sync_lane.wants(scope):
                await sync_lane.serve(django_application, scope, receive, send)
                return
        await django_application(scope, receive, send)
