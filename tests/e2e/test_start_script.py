"""The embedded default as a newcomer runs it (issue 9): `scripts/start` (SQLite, a worker with beat on
the filesystem broker, uvicorn), then, with nobody else around, a guest takes a quick-match ticket, gets
a full table of bots and plays a deal to its end over HTTP."""

import json
import os
import random
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.celery_worker

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Api:
    def __init__(self, base: str):
        self.base = base
        self.token: str | None = None

    def call(self, method: str, path: str, body: dict | None = None, query: str = "") -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"{self.base}{path}{query}", data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=40) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")


@pytest.fixture
def started_server(tmp_path):
    port = _free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")
    }
    env.update({"VAR_DIR": str(tmp_path / "var"), "PORT": str(port), "MATCHMAKING_BOTS_AFTER": "1"})
    log = open(tmp_path / "start.log", "wb")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        ["bash", "scripts/start"],
        cwd=BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        end = time.monotonic() + 120
        while time.monotonic() < end:
            assert process.poll() is None, (tmp_path / "start.log").read_text(errors="replace")[-3000:]
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=2):
                    break
            except OSError:
                time.sleep(0.5)
        else:
            raise AssertionError("scripts/start did not answer /healthz within 120 s")
        yield base, tmp_path / "start.log"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        log.close()


def test_a_newcomer_alone_gets_a_table_of_bots_and_plays_a_deal(started_server):
    base, log_path = started_server
    api = Api(f"{base}/api/v1")
    status, guest = api.call("POST", "/auth/guest")
    assert status == 201, guest
    api.token = guest["token"]
    status, ticket = api.call("POST", "/matchmaking/tickets", {"preset": "pagat"})
    assert status == 201, ticket
    end = time.monotonic() + 60
    while ticket["status"] == "waiting" and time.monotonic() < end:
        status, ticket = api.call("GET", f"/matchmaking/tickets/{ticket['id']}", query="?wait=5")
        assert status == 200, ticket
    assert ticket["status"] == "matched", log_path.read_text(errors="replace")[-3000:]
    status, table = api.call("GET", f"/tables/{ticket['table']}")
    assert [seat["user"]["is_bot"] for seat in table["seats"]].count(True) == 4

    rng = random.Random(3)
    game_id = ticket["game"]
    end = time.monotonic() + 300
    while time.monotonic() < end:
        status, view = api.call("GET", f"/games/{game_id}")
        assert status == 200, view
        if view["status"] != "running":
            break
        if view["legal_actions"]:
            action = rng.choice(view["legal_actions"])
            status, _ = api.call(
                "POST", f"/games/{game_id}/actions", {**action, "expected_version": view["version"]}
            )
            assert status in (200, 409)
        else:
            api.call("GET", f"/games/{game_id}/events", query="?after=0&wait=1")
    else:
        raise AssertionError("the deal did not end:\n" + log_path.read_text(errors="replace")[-3000:])
    status, final = api.call("GET", f"/games/{game_id}/final")
    assert status == 200 and len(final["scores"]) == 5 and final["hands"]
    # What the newcomer's terminal showed: a line per step, and no warning or stack trace among them
    # (Celery's root warning, kombu's missing host, a request logged twice were all there once).
    printed = [line for line in log_path.read_text(errors="replace").splitlines() if line.strip()]
    assert [line for line in printed if not line.startswith("baohuang: ")] == [], printed
    assert printed[-1].startswith("baohuang: play in your browser at http://127.0.0.1:"), printed
