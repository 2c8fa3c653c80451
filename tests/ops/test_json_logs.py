"""In production (`LOG_FORMAT=json`) every line a role writes is one JSON object, the servers' and
Celery's own lines included, from start to stop (docs/deploy.md "Logs").

Each role runs through the image's entrypoint (docker/entrypoint.sh) as a container would, against the
pytest PostgreSQL database and Redis, is asked something, and is stopped with SIGTERM.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from tests.games.worker import database_url
from tests.ops.server import BASE_DIR, REDIS, free_port, get, require_services

pytestmark = pytest.mark.django_db(transaction=True)

ENTRYPOINT = BASE_DIR / "docker" / "entrypoint.sh"


def _run_role(role: str, tmp_path: Path, ready, extra_env: dict | None = None) -> list[str]:
    """Starts the role, waits until `ready(output)` holds, stops it; returns every line it wrote."""
    output = tmp_path / f"{role}.log"
    environment = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": database_url(connection.settings_dict),
        "REDIS_URL": REDIS,
        "CELERY_BROKER_URL": REDIS,
        "LOG_FORMAT": "json",
        "LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
        "VAR_DIR": str(tmp_path),
        **(extra_env or {}),
    }
    with open(output, "wb") as sink:
        process = subprocess.Popen(
            ["sh", str(ENTRYPOINT), role],
            cwd=BASE_DIR,
            env=environment,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            end = time.monotonic() + 90
            while not ready(output.read_text(errors="replace")):
                assert process.poll() is None, output.read_text(errors="replace")[-3000:]
                assert time.monotonic() < end, output.read_text(errors="replace")[-3000:]
                time.sleep(0.2)
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=30)
    return [line for line in output.read_text(errors="replace").splitlines() if line.strip()]


def _assert_all_json(lines: list[str]) -> list[dict]:
    records = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            raise AssertionError(f"not a JSON line: {line!r}\nall lines:\n" + "\n".join(lines)) from None
        assert isinstance(record, dict) and {"level", "logger", "message", "time"} <= record.keys(), line
        records.append(record)
    return records


def _answers(port: int):
    def ready(_output: str) -> bool:
        try:
            return get(port, "/healthz", timeout=2)[0] == 200
        except OSError:
            return False

    return ready


@pytest.mark.parametrize("role", ["web", "events"])
def test_every_line_of_a_server_role_is_json(role, tmp_path):
    require_services()
    port = free_port()
    env = {"PORT": str(port)} if role == "web" else {"EVENTS_PORT": str(port)}
    records = _assert_all_json(
        _run_role(role, tmp_path, _answers(port), {**env, "WEB_CONCURRENCY": "1", "EVENTS_CONCURRENCY": "1"})
    )
    messages = [record["message"] for record in records]
    # gunicorn's own lines are among them, not dropped: its start, a worker, its stop.
    assert any(m.startswith("Starting gunicorn") for m in messages), messages
    assert any(m.startswith("Booting worker") for m in messages), messages
    assert any("Shutting down: Master" in m for m in messages), messages
    if role == "web":
        assert any(r["logger"] == "baohuang.request" and r.get("path") == "/healthz" for r in records)
    else:  # uvicorn's own lines, under gunicorn's logger
        assert any(m.startswith("Started server process") for m in messages), messages
        assert any(m.startswith("Finished server process") for m in messages), messages


def test_every_line_of_the_worker_and_beat_is_json(tmp_path):
    require_services()
    worker = _assert_all_json(
        _run_role("worker", tmp_path, lambda out: "ready." in out, {"CELERY_WORKER_POOL": "solo"})
    )
    messages = [record["message"] for record in worker]
    assert any(m.endswith("ready.") for m in messages), messages
    assert any(m.startswith("worker: Warm shutdown") for m in messages), messages
    if os.geteuid() == 0:
        # Celery's warning about running as root (the image runs unprivileged; CI and this machine run
        # as root) is a Python warning raised before Celery sets up its logging: a JSON line too.
        warned = [r for r in worker if r["logger"] == "py.warnings" and "superuser" in r["message"]]
        assert warned and warned[0]["level"] == "WARNING", messages
    # Stopped once it is scheduling (a SIGTERM while Celery opens its schedule file interrupts that).
    beat = _assert_all_json(_run_role("beat", tmp_path, lambda out: "Sending due task" in out))
    assert any(record["logger"] == "celery.beat" for record in beat)
