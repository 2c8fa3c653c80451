"""gunicorn settings for the `web` role (docker/entrypoint.sh): `gunicorn -c python:config.gunicorn`.

uvicorn workers (the uvicorn-worker package) run the ASGI app, so a waiting long-poll holds no worker.
Every value can be overridden by gunicorn's own GUNICORN_CMD_ARGS or the variables below.
"""

import gc
import os


def usable_cores() -> int:
    # The CPUs this process may run on (a container's cpuset), not the host's.
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:
        return os.cpu_count() or 1


def default_workers(cores: int) -> int:
    # One per core, at least two. A worker already serves many requests at once: each async request
    # is a task on its event loop, each synchronous view a thread of its own (config/request_threads.py),
    # so one waiting on PostgreSQL does not stall the others. More processes than cores only compete for
    # them, and each one more re-reads the wake-ups of the games its streams follow (config/wakeups.py)
    # and misses the state cache more often: under bench/load_tables.py (100 tables, 2 cores) 5 workers
    # cost 22.3 / 20.8 ms of CPU per move, 3 cost 20.3 / 21.1, 2 cost 18.9 / 17.6 (docs/scaling.md).
    # Two, not one, on a single core: a worker restarting or collecting garbage then stalls only half.
    return max(2, cores)



def default_env() -> list[str]:
    # A psycopg pool per worker unless the deployment chose its connections itself: long-polls give
    # their connection back while they wait (config/api/long_poll.py), so a few per worker serve every
    # request; without a pool each request opens a new PostgreSQL connection (docs/scaling.md).
    # gunicorn sets these in its own process when it starts, so the forked workers' settings see them.
    # Eight per worker: with one worker per core each serves more requests at once than the 2 × cores + 1
    # workers of four did (two cores now hold 16 connections, not 20). With four each, two workers ran
    # out in the first minute of bench/load_tables.py's 200 tables; a request that waits out the pool's
    # 10 s is answered 503 with Retry-After (config/api/handler.py).
    if "DB_POOL_MAX_SIZE" not in os.environ and os.environ.get("DB_CONN_MAX_AGE", "0") == "0":
        return ["DB_POOL_MAX_SIZE=8"]
    return []


wsgi_app = "config.asgi:application"
worker_class = "uvicorn_worker.UvicornWorker"
bind = os.environ.get("WEB_BIND", f"0.0.0.0:{os.environ.get('PORT', '8000')}")
workers = int(os.environ.get("WEB_CONCURRENCY") or default_workers(usable_cores()))
# SIGTERM: long-polls are released at once (config/shutdown.py); other requests get this long to finish
# before the arbiter kills the worker. Keep it below the orchestrator's grace period.
graceful_timeout = int(os.environ.get("WEB_GRACEFUL_TIMEOUT", "20"))
# A worker silent this long is restarted; a long-poll is awaited in the event loop, so it does not count.
timeout = int(os.environ.get("WEB_TIMEOUT", "60"))
keepalive = 5
raw_env = default_env()
# Our request middleware writes the access line (with its request id); gunicorn's would repeat it.
accesslog = None
# Behind a load balancer: trust X-Forwarded-* from the addresses listed (gunicorn's own default).
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")


# The garbage collector's thresholds in each worker (`gc.set_threshold`), "" for Python's own
# (700, 10, 10). Under the load test a worker allocates hundreds of thousands of short-lived objects
# a second: with Python's thresholds it ran a full collection every few seconds, each pausing all
# of the worker's requests for 100-900 ms on this machine, and those pauses were the move latency's
# p99. Fewer, larger young collections cost no more in total (docs/scaling.md "Garbage collection").
DEFAULT_GC_THRESHOLD = "50000,50,100"


def gc_threshold(value: str) -> tuple[int, ...] | None:
    """`WEB_GC_THRESHOLD` as thresholds for `gc.set_threshold`, or None for Python's own."""
    if not value.strip():
        return None
    threshold = tuple(int(part) for part in value.split(","))
    if not 1 <= len(threshold) <= 3 or any(part < 0 for part in threshold):
        raise ValueError(f"WEB_GC_THRESHOLD: one to three counts, not {value!r}")
    return threshold


def post_worker_init(worker) -> None:
    # The worker has loaded the application: what exists now (modules, settings, URL patterns, the
    # engine's tables) lives as long as the process, so a collection need not look at it again.
    gc.freeze()
    threshold = gc_threshold(os.environ.get("WEB_GC_THRESHOLD", DEFAULT_GC_THRESHOLD))
    if threshold is not None:
        gc.set_threshold(*threshold)


def child_exit(server, worker) -> None:
    # Multi-process metrics (config/metrics.py): a dead worker's live gauges must stop counting (its
    # counters stay summed). The master imports nothing of the app, so this reads the variable itself.
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
