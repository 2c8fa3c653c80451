"""Long-polls (`?wait=`) on the event server (events/waiting.py): a log's long-poll waits until
something is committed or the wait runs out, and answers what a plain read would; a ticket's
returns as soon as it is matched (docs/client-guide.md §3). The web role answers the same URLs at
once, whatever `wait` says: only the event server waits."""

import asyncio
import random
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from matchmaking import matching
from tests.api import sse
from tests.api.playing import step
from tests.events import client as events

pytestmark = pytest.mark.django_db(transaction=True)

TICKETS = "/api/v1/matchmaking/tickets"


def _queue(client) -> dict:
    response = client.post(TICKETS, {"preset": "weihai"}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def test_a_log_long_poll_waits_then_returns_empty(make_table, settings):
    settings.REDIS_URL = None
    settings.EVENTS_POLL_INTERVAL = 0.05
    setup = make_table()
    path = f"/api/v1/games/{setup['game']}/events"
    last = setup["clients"][0].get(path).json()["last_seq"]
    started = time.monotonic()
    answer = events.get(path, token=setup["tokens"][0], query={"after": last, "wait": 0.4})
    assert 0.35 <= time.monotonic() - started < 5
    assert answer.status == 200 and answer.json()["events"] == []


def test_the_web_role_answers_a_long_poll_at_once(make_table):
    setup = make_table()
    path = f"/api/v1/games/{setup['game']}/events"
    last = setup["clients"][0].get(path).json()["last_seq"]
    started = time.monotonic()
    body = setup["clients"][0].get(path, {"after": last, "wait": 20}).json()
    assert time.monotonic() - started < 5 and body["events"] == []


@pytest.mark.parametrize("mode", ["redis", "polling"])
def test_a_log_long_poll_returns_with_the_next_move(mode, make_table, settings):
    if mode == "redis":
        sse.use_redis(settings)
        settings.EVENTS_POLL_INTERVAL = 20  # a fallback poll cannot explain the answer
    else:
        settings.REDIS_URL = None
        settings.EVENTS_POLL_INTERVAL = 0.05
    setup = make_table()
    path = f"/api/v1/games/{setup['game']}/events"
    last = setup["clients"][0].get(path).json()["last_seq"]

    async def poll_and_move():
        waiting = asyncio.ensure_future(
            sync_to_async(events.get, thread_sensitive=False)(
                path, token=setup["tokens"][0], query={"after": last, "wait": 15}
            )
        )
        await asyncio.sleep(0.5)
        assert not waiting.done()
        started = time.monotonic()
        assert await sync_to_async(step)(setup["clients"], setup["game"], random.Random(2))
        answer = await waiting
        return answer, time.monotonic() - started

    answer, elapsed = async_to_sync(poll_and_move)()
    assert elapsed < 5
    expected = setup["clients"][0].get(path, {"after": last}).json()["events"]
    assert answer.json()["events"] == expected[: len(answer.json()["events"])] and answer.json()["events"]


@pytest.mark.parametrize("mode", ["redis", "polling"])
def test_a_ticket_long_poll_returns_as_soon_as_it_is_matched(mode, make_user, make_client, settings):
    if mode == "redis":
        sse.use_redis(settings)
        settings.EVENTS_POLL_INTERVAL = 20
    else:
        settings.REDIS_URL = None
        settings.EVENTS_POLL_INTERVAL = 0.1
    tokens = [make_user()[1] for _ in range(5)]
    ids = [_queue(make_client(token))["id"] for token in tokens]

    async def poll_and_match():
        waiting = asyncio.ensure_future(
            sync_to_async(events.get, thread_sensitive=False)(
                f"{TICKETS}/{ids[0]}", token=tokens[0], query={"wait": 15}
            )
        )
        await asyncio.sleep(0.5)
        assert not waiting.done()
        started = time.monotonic()
        assert await sync_to_async(matching.tickets_match)() == 5
        answer = await waiting
        return answer, time.monotonic() - started

    answer, elapsed = async_to_sync(poll_and_match)()
    assert elapsed < 5
    assert answer.json()["status"] == "matched" and answer.json()["table"] is not None


def test_a_ticket_long_poll_of_a_waiting_ticket_waits_then_answers_waiting(make_user, make_client, settings):
    settings.REDIS_URL = None
    settings.EVENTS_POLL_INTERVAL = 0.1
    _, token = make_user()
    ticket = _queue(make_client(token))
    started = time.monotonic()
    answer = events.get(f"{TICKETS}/{ticket['id']}", token=token, query={"wait": 0.6})
    assert time.monotonic() - started >= 0.5
    assert answer.json()["status"] == "waiting"


def test_with_redis_each_feed_entry_reaches_the_open_feed_stream(make_table, settings):
    """A feed entry's wake-up reaches the player's open feed stream (accounts/feed.py): what it
    carries over several moves is exactly his JSON feed."""
    sse.use_redis(settings)
    settings.EVENTS_POLL_INTERVAL = 20  # a fallback poll cannot explain what arrives
    settings.EVENTS_SSE_MAX_SECONDS = 60
    setup = make_table()
    client, token = setup["clients"][0], setup["tokens"][0]
    before = client.get("/api/v1/me/events").json()["last_seq"]
    rng = random.Random(4)

    async def follow():
        call = await events.open_call(
            "/api/v1/me/events", token=token, headers={**events.STREAM, "Last-Event-ID": str(before)}
        )
        try:
            text = ""
            chunks = call.chunks()
            text += await asyncio.wait_for(anext(chunks), 10)
            await asyncio.sleep(0.3)
            for _ in range(12):
                assert await sync_to_async(step)(setup["clients"], setup["game"], rng)
            expected = (await sync_to_async(client.get)("/api/v1/me/events", {"after": before})).json()
            end = time.monotonic() + 10
            while len(sse.parse(text)) < len(expected["events"]) and time.monotonic() < end:
                text += await asyncio.wait_for(anext(chunks), end - time.monotonic())
            return text, expected["events"]
        finally:
            await call.close()

    text, expected = async_to_sync(follow)()
    assert expected  # your_turn entries came
    assert sse.parse(text) == expected


def test_a_database_lost_during_the_wait_is_a_503_not_a_500(make_table, monkeypatch, settings):
    # The wait asks the database whether the feed changed; PostgreSQL stopping then (what the
    # fault suite met: "terminating connection due to administrator command") is the same 503 as
    # a read that finds it down.
    from django.db import OperationalError

    from accounts import feed

    settings.REDIS_URL = None
    settings.EVENTS_POLL_INTERVAL = 0.05
    setup = make_table()
    last = setup["clients"][0].get("/api/v1/me/events").json()["last_seq"]

    def lost(**kwargs):
        raise OperationalError("terminating connection due to administrator command")

    monkeypatch.setattr(feed, "feed_changed", lost)
    answer = events.get("/api/v1/me/events", token=setup["tokens"][0], query={"after": last, "wait": 2})
    assert answer.status == 503, answer.body
    assert answer.json()["code"] == "service_unavailable" and answer["Retry-After"]
