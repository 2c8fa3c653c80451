"""Celery processes: our logging, the task's ids on every log line, task failures counted, the
worker's own metrics endpoint, and database connections kept between tasks.

Connected from config/celery.py, so the worker and beat get them however they are started.
"""

import logging
import logging.config
import os

from celery import signals
from django.conf import settings
from django.db import close_old_connections

from infra import metrics, request_context
from infra.logs import logging_config

logger = logging.getLogger(__name__)

_bound: dict[str, object] = {}


@signals.setup_logging.connect
def _setup_logging(loglevel=None, **kwargs) -> None:
    # A receiver here keeps Celery from installing its own handlers: every process logs the same way
    # (JSON in production), at the level given on the command line.
    logging.config.dictConfig(logging_config(level=loglevel or settings.LOG_LEVEL, fmt=settings.LOG_FORMAT))
    logging.captureWarnings(True)


@signals.celeryd_init.connect
def _warnings_through_logging(**extra) -> None:
    """Before the worker checks its privileges (Celery's warning when it runs as root comes next,
    before its logging is set up): our logging, and Python warnings as log records of `py.warnings`,
    as Django's logging set-up makes them in the serving roles. In JSON mode every line a worker
    writes on stderr is JSON (docs/deploy.md "Logs")."""
    logging.config.dictConfig(logging_config(level=settings.LOG_LEVEL, fmt=settings.LOG_FORMAT))
    logging.captureWarnings(True)


@signals.task_prerun.connect
def _bind_task(task_id=None, task=None, kwargs=None, **extra) -> None:
    _bound[task_id] = request_context.bind_task(
        task_id=task_id, task_name=getattr(task, "name", None), kwargs=kwargs
    )


@signals.task_postrun.connect
def _unbind_task(task_id=None, **extra) -> None:
    token = _bound.pop(task_id, None)
    if token is not None:
        try:
            request_context.unbind(token)
        except ValueError:
            # Set in another context (a pool that runs prerun and postrun apart): just forget it.
            request_context.clear()


# Celery's Django fixup closes every database connection before and after each task unless
# CELERY_DB_REUSE_MAX is set (config/settings/base.py sets it): a turn timer, a trustee chain or a
# bot's move then began by opening a PostgreSQL connection, the largest single cost of a timeout
# (docs/scaling.md "Timers"). Django's own rule applies instead, as around a web request: a
# connection older than CONN_MAX_AGE, or broken, or left in a transaction, is closed.
WORKER_DB_CONN_MAX_AGE = 600


@signals.celeryd_init.connect
def _keep_database_connections(**extra) -> None:
    """In the worker's main process, before its pool starts: unless the deployment chose
    DB_CONN_MAX_AGE, its connections are kept WORKER_DB_CONN_MAX_AGE seconds; a kept connection is
    checked before each task's first query (a database restarted meanwhile costs a reconnect, not a
    failed task).

    The worker never uses the serving roles' connection pool (DB_POOL_MAX_SIZE, which a deployment
    may set for every role): its few task threads keep a connection each anyway, and after an
    outage a pool that has given up reconnecting waits for a new request to try again, while every
    task thread sits in the pool's queue until its timeout (tests/faults: bots resumed seconds late)."""
    for database in settings.DATABASES.values():
        if database.get("OPTIONS", {}).get("pool"):
            database["OPTIONS"] = {key: value for key, value in database["OPTIONS"].items() if key != "pool"}
        if "DB_CONN_MAX_AGE" not in os.environ:
            database["CONN_MAX_AGE"] = WORKER_DB_CONN_MAX_AGE
        database["CONN_HEALTH_CHECKS"] = True


@signals.task_prerun.connect
@signals.task_postrun.connect
def _close_old_connections(task=None, **extra) -> None:
    # Not around a task run in the caller's own process (`apply()`, eager mode): the caller's
    # connection, perhaps in a transaction, is not the task's to close (as Celery's fixup does).
    if not getattr(getattr(task, "request", None), "is_eager", False):
        close_old_connections()


@signals.task_failure.connect
def _count_failure(sender=None, **extra) -> None:
    metrics.record_task_failure(task=getattr(sender, "name", None) or "unknown")


@signals.worker_ready.connect
def _serve_worker_metrics(**extra) -> None:
    """WORKER_METRICS_PORT: the worker's figures (timeouts, trustee and bot actions, deliveries, task
    failures) on http://WORKER_METRICS_ADDR:PORT/metrics. No token: bind it to a private network."""
    port = os.environ.get("WORKER_METRICS_PORT")
    if not port:
        return
    from prometheus_client import start_http_server

    address = os.environ.get("WORKER_METRICS_ADDR", "0.0.0.0")
    start_http_server(int(port), addr=address, registry=metrics.process_registry())
    logger.info("worker metrics on %s:%s", address, port)


@signals.worker_process_shutdown.connect
def _forget_child(pid=None, **extra) -> None:
    if metrics.multiprocess_dir() and pid:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)


@signals.worker_shutting_down.connect
def _log_shutdown(sig=None, how=None, exitcode=None, **extra) -> None:
    # Celery prints its own notice of this to stdout, outside logging; the entrypoint discards the
    # worker's stdout in JSON mode (docker/entrypoint.sh), so the notice is kept here as a log line.
    logger.info("worker: %s shutdown on %s", how, sig, extra={"exit_code": exitcode})
