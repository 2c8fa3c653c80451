"""gunicorn settings of the `web` role (docker/entrypoint.sh): `gunicorn -c python:config.gunicorn`.

Django's WSGI application on gunicorn's threaded workers (`gthread`): every API request is a
synchronous view served by Django's own handler and middleware, one thread per request in flight.
Nothing on this role waits for long: the waiting reads are the `events` role's (config/gunicorn_events.py),
and the reverse proxy routes them there. Every value can be overridden by GUNICORN_CMD_ARGS or the
variables below.
"""

import os

from config.gunicorn_common import (  # noqa: F401 - settings and hooks gunicorn reads here
    child_exit,
    control_socket_disable,
    database_pool,
    logconfig_dict,
    post_worker_init,
    usable_cores,
)

wsgi_app = "config.wsgi:application"
worker_class = "gthread"
bind = os.environ.get("WEB_BIND", f"0.0.0.0:{os.environ.get('PORT', '8000')}")
# A process per core: the threads of one process share its interpreter lock, so CPU-bound views
# need processes to use every core; the threads cover the time a request waits on PostgreSQL.
workers = int(os.environ.get("WEB_CONCURRENCY") or max(2, usable_cores()))
threads = int(os.environ.get("WEB_THREADS", "8"))
# SIGTERM: requests in flight get this long to finish before the arbiter kills the worker. Keep it
# below the orchestrator's grace period.
graceful_timeout = int(os.environ.get("WEB_GRACEFUL_TIMEOUT", "20"))
timeout = int(os.environ.get("WEB_TIMEOUT", "60"))
keepalive = 5
# Our request middleware writes the access line (with its request id); gunicorn's would repeat it.
accesslog = None
# The client's address is the socket's (REMOTE_ADDR) unless NUM_PROXIES says otherwise: the
# application alone reads X-Forwarded-For (docs/deploy.md "Client addresses").
forwarded_allow_ips = ""


# A pool per worker as large as its threads: one connection per request in flight.
raw_env = database_pool(threads)
