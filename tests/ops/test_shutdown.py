"""A web process told to stop (SIGTERM) releases its waiting long-polls at once: they answer 200 with
what they have (no events), and the process exits, instead of holding them up to 30 s.

A real server (uvicorn alone, and gunicorn with uvicorn workers as the `web` role runs it) on a free
loopback port, against the pytest PostgreSQL database and Redis for the wake-ups.
"""

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.db import connection

from tests.games.worker import database_url

pytestmark = pytest.mark.django_db(transaction=True)

BASE_DIR = Path(__file__).resolve().parent.parent.parent
BIN = Path(sys.executable).parent
# Only publish/subscribe is used, which Redis does not split by database number.
REDIS = os.environ.get("OPS_TEST_REDIS", "redis://127.0.0.1:6379/12")
LONG_POLL_WAIT = 25


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


def server_command(kind: str, port: int) -> list[str]:
    if kind == "uvicorn":
        return [str(BIN / "uvicorn"), "config.asgi:application", "--host", "127.0.0.1", "--port", str(port)]
    return [
        str(BIN / "gunicorn"),
        "--config",
        "python:config.gunicorn",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        "1",
    ]


@contextlib.contextmanager
def running_server(kind: str, log_path: Path):
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": database_url(connection.settings_dict),
        "REDIS_URL": REDIS,
        "CELERY_BROKER_URL": "memory://",
        "LOG_FORMAT": "json",
        "LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            server_command(kind, port),
            cwd=BASE_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            wait_until_up(process, port, log_path)
            yield process, port
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


def wait_until_up(process, port: int, log_path: Path, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if process.poll() is not None:
            raise AssertionError(f"server exited with {process.returncode}:\n{log_path.read_text()[-3000:]}")
        with contextlib.suppress(OSError):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                return
        time.sleep(0.2)
    raise AssertionError(f"server not up after {timeout}s:\n{log_path.read_text()[-3000:]}")


def wait_for_subscriber(game_id: int, timeout: float = 30) -> None:
    """The long-poll subscribes to its game's wake-ups before it waits: then it is surely waiting."""
    import redis

    client = redis.Redis.from_url(REDIS)
    channel = f"baohuang:game:{game_id}"
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if dict(client.pubsub_numsub(channel)).get(channel.encode(), 0) > 0:
            return
        time.sleep(0.05)
    raise AssertionError("the long-poll never started waiting")


@pytest.mark.parametrize("kind", ["uvicorn", "gunicorn"])
def test_sigterm_releases_a_waiting_long_poll_with_an_empty_answer(kind, make_table, tmp_path):
    require_services()
    setup = make_table()
    game_id, token = setup["game"], setup["tokens"][0]
    last_seq = setup["clients"][0].get(f"/api/v1/games/{game_id}/events").json()["last_seq"]
    log_path = tmp_path / f"{kind}.log"
    answer: dict = {}

    with running_server(kind, log_path) as (process, port):

        def long_poll() -> None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=LONG_POLL_WAIT + 20)
            conn.request(
                "GET",
                f"/api/v1/games/{game_id}/events?after={last_seq}&wait={LONG_POLL_WAIT}",
                headers={"Authorization": f"Bearer {token}", "X-Request-ID": "shutdown-poll"},
            )
            response = conn.getresponse()
            answer.update(status=response.status, body=json.loads(response.read()), at=time.monotonic())

        poller = threading.Thread(target=long_poll)
        poller.start()
        wait_for_subscriber(game_id)
        signalled = time.monotonic()
        os.kill(process.pid, signal.SIGTERM)
        poller.join(timeout=LONG_POLL_WAIT + 20)
        exit_code = process.wait(timeout=30)

    log = log_path.read_text(errors="replace")
    assert answer.get("status") == 200, (answer, log[-3000:])
    assert answer["body"]["events"] == [] and answer["body"]["last_seq"] == last_seq
    released_after = answer["at"] - signalled
    # Released by the signal, not by the end of its 25 s wait (bounded generously for a busy machine).
    assert released_after < LONG_POLL_WAIT / 2, (released_after, log[-3000:])
    # uvicorn re-raises SIGTERM once it has shut down; gunicorn's arbiter exits 0.
    assert exit_code in (0, -signal.SIGTERM), (exit_code, log[-3000:])
    access = [
        record
        for record in map(json.loads, (line for line in log.splitlines() if line.startswith("{")))
        if record.get("logger") == "baohuang.request" and record.get("request_id") == "shutdown-poll"
    ]
    assert [(r["status"], r["game_id"], r["route"]) for r in access] == [
        (200, game_id, "api/v1/games/<int:game_id>/events")
    ]
