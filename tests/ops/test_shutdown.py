"""A process that holds waiting long-polls, told to stop (SIGTERM), releases them at once: they answer
200 with what they have (no events), and the process exits, instead of holding them up to 30 s.

A real server (uvicorn alone as `scripts/start` runs it, and gunicorn as the `events` role runs it)
on a free loopback port, against the pytest PostgreSQL database and Redis for the wake-ups. (The
`web` role never waits: it answers a long-poll at once, docs/architecture.md.)
"""

import http.client
import json
import os
import signal
import threading
import time

import pytest

from infra import wakeups
from tests.ops.server import REDIS, require_services, running_server

pytestmark = pytest.mark.django_db(transaction=True)

LONG_POLL_WAIT = 25


def wait_for_subscriber(game_id: int, timeout: float = 30) -> None:
    """The long-poll subscribes to its game's wake-ups before it waits: then it is surely waiting."""
    import redis

    client = redis.Redis.from_url(REDIS)
    channel = wakeups.channel_prefix_for(REDIS) + f"game:{game_id}"  # the server's Redis
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if dict(client.pubsub_numsub(channel)).get(channel.encode(), 0) > 0:
            return
        time.sleep(0.05)
    raise AssertionError("the long-poll never started waiting")


@pytest.mark.parametrize("kind", ["uvicorn", "events"])
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
        (200, game_id, "api/v1/games/<id:game_id>/events")
    ]


@pytest.mark.parametrize("kind", ["uvicorn", "events"])
def test_sigterm_ends_an_open_stream_with_its_closing_chunk(kind, make_table, tmp_path):
    """An open stream ends at the signal, and ends whole (its chunked body's last chunk sent: the
    stop mark ends the stream's loop, within the grace sse-starlette's own drain gives it), so the
    client reconnects from its Last-Event-ID rather than see a broken answer."""
    require_services()
    setup = make_table()
    game_id, token = setup["game"], setup["tokens"][0]
    log_path = tmp_path / f"{kind}-stream.log"
    answer: dict = {}

    with running_server(kind, log_path) as (process, port):

        def stream() -> None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.request(
                "GET",
                f"/api/v1/games/{game_id}/events",
                headers={"Authorization": f"Bearer {token}", "Accept": "text/event-stream"},
            )
            response = conn.getresponse()
            try:
                body = response.read()  # raises IncompleteRead if the body is cut short
                answer.update(status=response.status, body=body.decode(), at=time.monotonic())
            except http.client.IncompleteRead as exc:
                answer.update(status=response.status, cut=exc, at=time.monotonic())

        reader = threading.Thread(target=stream)
        reader.start()
        wait_for_subscriber(game_id)
        signalled = time.monotonic()
        os.kill(process.pid, signal.SIGTERM)
        reader.join(timeout=60)
        process.wait(timeout=30)

    log = log_path.read_text(errors="replace")
    assert answer.get("status") == 200 and "body" in answer, (answer, log[-3000:])
    assert answer["body"].startswith("retry: 2000\n")
    assert answer["at"] - signalled < 10, (answer["at"] - signalled, log[-3000:])
