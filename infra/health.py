"""Probes for the orchestrator and the load balancer.

`GET /healthz`: the process answers (no dependency is touched), so a restart is only asked for when
the process itself is stuck. `GET /readyz`: the database answers, every migration on disk is applied,
the Celery broker and the wake-up Redis answer. Each check has READYZ_TIMEOUT seconds and they run
side by side, so the probe answers within about READYZ_TIMEOUT however many dependencies hang; a
failure is a 503 in the one error shape naming the failing checks.

Not django-health-check: its failures are an HTML/JSON page of its own rather than our error body, and
its database check goes through Django's connection, which can wait for the connection pool (10 s) or
the operating system's connect timeout. Here the database is asked on a connection of its own with a
connect timeout and a statement timeout, and the reasons given out stay generic (the full error goes
to the log), because the probe is reachable by anyone who reaches the service.
"""

import concurrent.futures
import functools
import logging
import math
import os
from dataclasses import dataclass

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder
from django.http import JsonResponse

from infra.api.errors import ApiError, ErrorCode
from infra.api.plain import error_response, get_only

logger = logging.getLogger(__name__)

ALL_CHECKS = ("database", "migrations", "broker", "redis")
# Libpq settings passed on from DATABASES OPTIONS to the probe's own connection.
_LIBPQ_OPTIONS = ("sslmode", "sslrootcert", "sslcert", "sslkey", "target_session_attrs")
# Checks that hang (a black-holed address) keep a thread until their own socket timeout; a small pool
# bounds how many can pile up, and a check that finds no free thread is reported as timed out.
_executor = concurrent.futures.ThreadPoolExecutor(max_workers=6, thread_name_prefix="readyz")


@dataclass(frozen=True)
class Outcome:
    state: str  # "ok", "failed" or "skipped"
    detail: str = ""

    def text(self) -> str:
        return self.state if not self.detail else f"{self.state}: {self.detail}"


OK = Outcome("ok")


@get_only
def healthz(request):
    return JsonResponse({"status": "ok"})


@get_only
def readyz(request):
    ready = readiness()
    if isinstance(ready, ApiError):
        return error_response(ready)
    return JsonResponse(ready)


def readiness() -> dict | ApiError:
    """The readiness probe's answer (also the event server's, events/app.py): the body when every
    check passes, else the error to answer."""
    results = run_checks(checks=settings.READYZ_CHECKS, timeout=settings.READYZ_TIMEOUT)
    failing = [name for name, outcome in results.items() if outcome.state == "failed"]
    checks = {name: outcome.text() for name, outcome in results.items()}
    if failing:
        return ApiError(
            ErrorCode.SERVICE_UNAVAILABLE,
            f"Not ready: {', '.join(failing)}.",
            extra={"failing": failing, "checks": checks},
        )
    return {"status": "ready", "checks": checks}


def run_checks(*, checks, timeout: float) -> dict[str, Outcome]:
    wanted = [name for name in ALL_CHECKS if checks is None or name in checks]
    jobs = {}
    if "database" in wanted or "migrations" in wanted:
        jobs["database"] = _executor.submit(_database_and_migrations, timeout)
    if "broker" in wanted:
        jobs["broker"] = _executor.submit(_broker, timeout)
    if "redis" in wanted:
        jobs["redis"] = _executor.submit(_wakeup_redis, timeout)
    concurrent.futures.wait(jobs.values(), timeout=timeout + 0.5)
    results: dict[str, Outcome] = {}
    for job_name, future in jobs.items():
        if not future.done():
            outcome = {job_name: Outcome("failed", "timed out")}
            if job_name == "database":
                outcome["migrations"] = Outcome("skipped", "database unavailable")
        elif future.exception() is not None:
            logger.warning("readiness check %s failed", job_name, exc_info=future.exception())
            outcome = {job_name: Outcome("failed", "unreachable")}
            if job_name == "database":
                outcome["migrations"] = Outcome("skipped", "database unavailable")
        else:
            outcome = future.result()
        results.update(outcome)
    return {name: results[name] for name in wanted}


# The database and its migrations --------------------------------------------------------------------


@functools.cache
def migrations_on_disk() -> dict[tuple[str, str], tuple]:
    """Every migration the code has, with the migrations it replaces (squashes), read once."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    return {key: tuple(migration.replaces or ()) for key, migration in loader.disk_migrations.items()}


def pending_migrations(applied: set[tuple[str, str]]) -> list[tuple[str, str]]:
    on_disk = migrations_on_disk()
    replaced_by = {old: key for key, replaces in on_disk.items() for old in replaces}
    pending = []
    for key, replaces in on_disk.items():
        if key in applied:
            continue
        if replaces and all(old in applied for old in replaces):
            continue
        if key in replaced_by and replaced_by[key] in applied:
            continue
        pending.append(key)
    return sorted(pending)


def _database_and_migrations(timeout: float) -> dict[str, Outcome]:
    database = connections[DEFAULT_DB_ALIAS]
    if database.vendor == "postgresql":
        applied = _postgres_applied(database.settings_dict, timeout)
    else:
        applied = _django_applied(database)
    if applied is None:
        return {"database": OK, "migrations": Outcome("failed", "no migrations applied")}
    pending = pending_migrations(applied)
    if pending:
        return {"database": OK, "migrations": Outcome("failed", f"{len(pending)} not applied")}
    return {"database": OK, "migrations": OK}


def _postgres_applied(settings_dict: dict, timeout: float) -> set[tuple[str, str]] | None:
    import psycopg

    options = settings_dict.get("OPTIONS") or {}
    params = {
        "dbname": settings_dict.get("NAME"),
        "user": settings_dict.get("USER"),
        "password": settings_dict.get("PASSWORD"),
        "host": settings_dict.get("HOST"),
        "port": settings_dict.get("PORT"),
        # libpq waits at least 2 s; the probe as a whole still answers after `timeout`.
        "connect_timeout": max(2, math.ceil(timeout)),
        "application_name": "baohuang-readyz",
        **{key: options[key] for key in _LIBPQ_OPTIONS if key in options},
    }
    params = {key: value for key, value in params.items() if value not in (None, "")}
    with psycopg.connect(**params) as conn:
        # SET LOCAL, inside the probe's transaction: a session-wide SET would outlive it behind PgBouncer.
        conn.execute("SELECT set_config('statement_timeout', %s, true)", [f"{int(timeout * 1000)}ms"])
        conn.execute("SELECT 1")
        exists = conn.execute("SELECT to_regclass('django_migrations') IS NOT NULL").fetchone()[0]
        if not exists:
            return None
        return {(app, name) for app, name in conn.execute("SELECT app, name FROM django_migrations")}


def _django_applied(database) -> set[tuple[str, str]] | None:
    # SQLite (the embedded default): a local file, so Django's own connection cannot hang on a network.
    try:
        with database.cursor() as cursor:
            cursor.execute("SELECT 1")
        recorder = MigrationRecorder(database)
        if not recorder.has_table():
            return None
        return set(recorder.applied_migrations())
    finally:
        database.close()


# The broker and the wake-up Redis ---------------------------------------------------------------------


def _redis_ping(url: str, timeout: float) -> None:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
    try:
        client.ping()
    finally:
        client.close()


def _broker(timeout: float) -> dict[str, Outcome]:
    from config.celery import app

    url = app.conf.broker_url or ""
    scheme = url.partition("://")[0]
    if scheme in ("redis", "rediss"):
        _redis_ping(url, timeout)
    elif scheme == "memory":
        return {"broker": Outcome("skipped", "in-process broker")}
    elif scheme == "filesystem":
        folder = (app.conf.broker_transport_options or {}).get("data_folder_in", "")
        if not (folder and os.path.isdir(folder) and os.access(folder, os.W_OK)):
            return {"broker": Outcome("failed", "queue folder not writable")}
    else:
        with app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=1, timeout=timeout)
    return {"broker": OK}


def _wakeup_redis(timeout: float) -> dict[str, Outcome]:
    if not settings.REDIS_URL:
        return {"redis": Outcome("skipped", "REDIS_URL not set")}
    _redis_ping(settings.REDIS_URL, timeout)
    return {"redis": OK}
