"""Per-user caps on the event server (events/caps.py, docs/security.md, docs/client-guide.md §5): a
user holds at most EVENTS_MAX_STREAMS_PER_USER open streams, across all his tokens, and a new one
closes his oldest; at most EVENTS_MAX_LONG_POLLS_PER_USER waiting long-polls, and one more is
refused `429 throttled` with Retry-After. Other users are unaffected."""

import asyncio
import random
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from accounts import services as account_services
from accounts.scopes import Scope
from tests.api import sse
from tests.api.playing import step
from tests.conftest import assert_error
from tests.events import client as events

pytestmark = pytest.mark.django_db(transaction=True)

STREAM = events.STREAM


def _second_token(user) -> str:
    _, key = account_services.personal_token_create(
        user=user, name="second", scopes=[Scope.READ], expires_in_days=1, granted=frozenset(Scope.values)
    )
    return key


async def _read_until(call: events.Call, done, *, timeout: float = 10.0) -> tuple[str, bool]:
    """Read `call`'s stream until `done(text)` holds or it ends; (the text, whether it ended)."""
    text = ""
    chunks = call.chunks()
    end = time.monotonic() + timeout
    while not done(text):
        left = end - time.monotonic()
        assert left > 0, f"timed out; read so far: {text[-300:]!r}"
        try:
            text += await asyncio.wait_for(anext(chunks), left)
        except StopAsyncIteration:
            return text, True
    return text, False


async def _opened(path: str, token: str) -> tuple[events.Call, str]:
    call = await events.open_call(path, token=token, headers=STREAM)
    assert call.status == 200, await call.body()
    opening, ended = await _read_until(call, lambda text: "\n\n" in text)
    assert not ended
    return call, opening


@pytest.mark.parametrize("mode", ["redis", "polling"])
def test_a_users_stream_past_the_cap_closes_his_oldest_and_no_one_elses(mode, make_table, settings):
    """One user, two tokens, the cap at 2: his third stream closes his first at once (with a long
    `retry`), his second and third go on receiving, and another player's streams are untouched."""
    if mode == "redis":
        sse.use_redis(settings)
        settings.EVENTS_POLL_INTERVAL = 20  # only the close itself can end the stream quickly
    else:
        settings.REDIS_URL = None
        settings.EVENTS_POLL_INTERVAL = 0.05
    settings.EVENTS_SSE_KEEPALIVE = 60
    settings.EVENTS_SSE_MAX_SECONDS = 60
    settings.EVENTS_MAX_STREAMS_PER_USER = 2
    setup = make_table()
    game = f"/api/v1/games/{setup['game']}/events"
    first_token, second_token = setup["tokens"][0], _second_token(setup["users"][0])
    other_token = setup["tokens"][1]

    async def scenario():
        oldest, _ = await _opened(game, first_token)
        feed, _ = await _opened("/api/v1/me/events", second_token)
        others = [(await _opened(game, other_token))[0] for _ in range(2)]
        calls = [oldest, feed, *others]
        try:
            started = time.monotonic()
            newest, _ = await _opened(game, first_token)
            calls.append(newest)
            closed, ended = await _read_until(oldest, lambda text: False)
            seconds = time.monotonic() - started
            # The ones still open are alive: a move reaches both game-log streams of each player.
            last_seq = max(entry["seq"] for entry in sse.parse(closed))
            await sync_to_async(step)(setup["clients"], setup["game"], random.Random(1))

            def moved_on(text: str) -> bool:
                return any(entry["seq"] > last_seq for entry in sse.parse(text))

            moved = [await _read_until(call, moved_on) for call in (newest, *others)]
            return closed, ended, seconds, moved
        finally:
            for call in calls:
                await call.close()

    closed, ended, seconds, moved = async_to_sync(scenario)()
    assert ended and seconds < 5
    assert closed.endswith("retry: 30000\n: closed: a newer stream of yours took its place\n\n")
    assert all(not stream_ended for _, stream_ended in moved)


def test_a_long_poll_past_the_cap_is_refused_with_retry_after_and_no_one_elses(make_table, settings):
    """The cap at 1: of one user's two waiting long-polls one is refused at once, `429 throttled`
    with Retry-After; his other and another player's wait and are answered by the next move."""
    settings.REDIS_URL = None
    settings.EVENTS_POLL_INTERVAL = 0.05
    settings.EVENTS_MAX_LONG_POLLS_PER_USER = 1
    setup = make_table()
    path = f"/api/v1/games/{setup['game']}/events"
    after = events.get(path, token=setup["tokens"][0]).json()["last_seq"]

    def poll(token: str) -> events.Call:
        return events.pending_call(path, query={"after": after, "wait": 25}, token=token)

    async def scenario():
        # Two at once: whichever waits first holds the one place, the other is refused at once.
        calls = [poll(setup["tokens"][0]), poll(setup["tokens"][0]), poll(setup["tokens"][1])]
        starts = [asyncio.ensure_future(call.start()) for call in calls]
        try:
            done, _ = await asyncio.wait(starts, timeout=10, return_when=asyncio.FIRST_COMPLETED)
            assert len(done) == 1
            refused = done.pop().result()
            assert refused in calls[:2]
            refusal = events.Answer(refused.status, refused.headers, await refused.body())
            await sync_to_async(step)(setup["clients"], setup["game"], random.Random(1))
            answered = []
            for call, start in zip(calls, starts, strict=True):
                if call is not refused:
                    await asyncio.wait_for(start, 10)
                    answered.append(events.Answer(call.status, call.headers, await call.body()))
            return refusal, answered
        finally:
            for call in calls:
                await call.close()

    refusal, answered = async_to_sync(scenario)()
    body = assert_error(refusal, 429, "throttled")
    retry_after = int(refusal["Retry-After"])
    assert 1 <= retry_after <= 26 and body["extra"]["retry_after"] == retry_after
    for answer in answered:
        assert answer.status == 200 and answer.json()["last_seq"] > after
