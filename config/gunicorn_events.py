"""gunicorn settings of the `events` role (docker/entrypoint.sh): `gunicorn -c python:config.gunicorn_events`.

The event server (events/, config/asgi.py `events_application`) on uvicorn's worker: a waiting
long-poll or an open stream is an entry in the worker's event loop, so one process holds thousands.
"""

import os

from uvicorn_worker import UvicornWorker

from config.gunicorn_common import (  # noqa: F401 - settings and hooks gunicorn reads here
    child_exit,
    control_socket_disable,
    database_pool,
    logconfig_dict,
    post_worker_init,
    usable_cores,
)


class EventsWorker(UvicornWorker):
    # uvicorn would take the client's address from X-Forwarded-For (from the addresses in
    # FORWARDED_ALLOW_IPS, 127.0.0.1 by default): the application alone reads that header, by
    # NUM_PROXIES (docs/deploy.md "Client addresses").
    CONFIG_KWARGS = {"loop": "auto", "http": "auto", "proxy_headers": False}


wsgi_app = "config.asgi:events_application"
worker_class = "config.gunicorn_events.EventsWorker"
bind = os.environ.get("EVENTS_BIND", f"0.0.0.0:{os.environ.get('EVENTS_PORT', '8001')}")
# Half the cores, two at least: a waiting request costs no CPU, but opening a stream reads the log,
# and a thousand clients reconnecting at once (a proxy restart) queue behind a single process.
workers = int(os.environ.get("EVENTS_CONCURRENCY") or max(2, usable_cores() // 2))
# SIGTERM releases every waiting request at once (events/shutdown.py); streams end at once too.
graceful_timeout = int(os.environ.get("EVENTS_GRACEFUL_TIMEOUT", "10"))
# A worker silent this long is restarted; a wait is awaited in the event loop, so it does not count.
timeout = int(os.environ.get("EVENTS_TIMEOUT", "60"))
keepalive = 5
accesslog = None
forwarded_allow_ips = ""


# A few pooled connections per worker serve every request: each read gives its connection back at
# once (events/threads.py), a waiting request holds none.
raw_env = database_pool(8)
