"""A real server in a subprocess on a free loopback port, against the pytest PostgreSQL database:
`uvicorn` (a newcomer's single server, config/asgi.py `application`), `gunicorn` (the `web` role,
config/gunicorn.py) or `events` (the `events` role, config/gunicorn_events.py)."""

import contextlib
import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from tests.games.worker import database_url

BASE_DIR = Path(__file__).resolve().parent.parent.parent
BIN = Path(sys.executable).parent
# Only publish/subscribe is used, which Redis does not split by database number.
REDIS = os.environ.get("OPS_TEST_REDIS", "redis://127.0.0.1:6379/12")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def require_services() -> None:
    import redis

    problems = []
    if connection.vendor != "postgresql":
        problems.append("PostgreSQL (set DATABASE_URL)")
    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=1).ping()
    except Exception:  # noqa: BLE001
        problems.append(f"Redis at {REDIS}")
    if problems:
        # scripts/test provides both: in CI a missing service is a failure, never a skip.
        (pytest.fail if os.environ.get("CI") else pytest.skip)("needs " + " and ".join(problems))


def server_command(kind: str, port: int, workers: int) -> list[str]:
    if kind == "uvicorn":
        return [str(BIN / "uvicorn"), "config.asgi:application", "--host", "127.0.0.1", "--port", str(port)]
    return [
        str(BIN / "gunicorn"),
        "--config",
        "python:config.gunicorn_events" if kind == "events" else "python:config.gunicorn",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
    ]


@contextlib.contextmanager
def running_server(kind: str, log_path: Path, *, workers: int = 1, env: dict | None = None):
    """Yields (process, port) once /healthz answers; kills the whole process group afterwards."""
    port = free_port()
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": database_url(connection.settings_dict),
        "REDIS_URL": REDIS,
        "CELERY_BROKER_URL": "memory://",
        "LOG_FORMAT": "json",
        "LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
    }
    environment.pop("PROMETHEUS_MULTIPROC_DIR", None)
    environment.update(env or {})
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            server_command(kind, port, workers),
            cwd=BASE_DIR,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            _wait_until_up(process, port, log_path)
            yield process, port
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


def get(port: int, path: str, headers: dict | None = None, timeout: float = 10) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def _wait_until_up(process, port: int, log_path: Path, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if process.poll() is not None:
            raise AssertionError(f"server exited with {process.returncode}:\n{log_path.read_text()[-3000:]}")
        with contextlib.suppress(OSError):
            if get(port, "/healthz", timeout=2)[0] == 200:
                return
        time.sleep(0.2)
    raise AssertionError(f"server not up after {timeout}s:\n{log_path.read_text()[-3000:]}")
