"""What both gunicorn roles (config/gunicorn.py, config/gunicorn_events.py) share: the cores they
may use, gunicorn's own logging, and the worker hooks."""

import gc
import os

from infra.logs import gunicorn_logging_config

# gunicorn's own lines as JSON in production, like every other line (docs/deploy.md "Logs").
logconfig_dict = gunicorn_logging_config(
    level=os.environ.get("LOG_LEVEL", "INFO"), fmt=os.environ.get("LOG_FORMAT", "text")
)
# gunicorn's control socket (`gunicornc`) is not used here; left on, every gunicorn of a host (the
# web and events roles, a test's servers) would share one path in $HOME.
control_socket_disable = True


def usable_cores() -> int:
    # The CPUs this process may run on (a container's cpuset), not the host's.
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:
        return os.cpu_count() or 1


def database_pool(size: int) -> list[str]:
    """gunicorn's `raw_env`: a psycopg pool of `size` per worker, unless the deployment chose its
    connections itself (DB_POOL_MAX_SIZE, or persistent connections with DB_CONN_MAX_AGE). gunicorn
    sets these in its own process when it starts, so the forked workers' settings see them."""
    if "DB_POOL_MAX_SIZE" not in os.environ and os.environ.get("DB_CONN_MAX_AGE", "0") == "0":
        return [f"DB_POOL_MAX_SIZE={size}"]
    return []


def post_worker_init(worker) -> None:
    # The worker has loaded the application: what exists now (modules, settings, URL patterns, the
    # engine's tables) lives as long as the process, so the collector need not look at it again.
    gc.freeze()


def child_exit(server, worker) -> None:
    # Multi-process metrics (infra/metrics.py): a dead worker's live gauges must stop counting (its
    # counters stay summed). The master imports nothing of the app, so this reads the variable itself.
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
