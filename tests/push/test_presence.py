"""Issue 39 item 2: a foreground app must not buzz. A user with an open stream on the event server is
marked watching in Redis (events/presence.py); the worker then pushes no `your_turn` to him
(infra/presence.py). When the stream ends, the next turn is pushed."""

import asyncio
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from accounts.feed import feed_append
from infra import presence, wakeups
from tests.conftest import require_local_redis
from tests.events import client as events
from tests.push.helpers import run_queued_tasks

pytestmark = pytest.mark.django_db(transaction=True)

REDIS_URL = "redis://127.0.0.1:6379/14"


@pytest.fixture
def redis_on(settings):
    require_local_redis(REDIS_URL)
    settings.REDIS_URL = REDIS_URL
    wakeups.client_reset()
    wakeups.redis_client().flushdb()
    yield
    wakeups.client_reset()


async def _until(check, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while not await sync_to_async(check)():
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.05)


def test_a_watching_user_gets_no_your_turn_push_and_a_backgrounded_one_does(
    redis_on, webpush_service, make_user, make_client
):
    user, token = make_user()
    browser = webpush_service.browser()
    created = make_client(token).post(
        "/api/v1/me/devices", {"platform": "webpush", "subscription": browser.subscription()}, format="json"
    )
    assert created.status_code == 201

    def turn(version: int) -> list[str]:
        feed_append(user_id=user.pk, type="your_turn", data={"game": 9, "version": version})
        return run_queued_tasks()

    async def scenario():
        stream = await events.open_call("/api/v1/me/events", token=token, headers=events.STREAM)
        assert stream.status == 200
        await _until(lambda: presence.watching(user_id=user.pk))
        assert await sync_to_async(turn)(1) == ["push.entries_drain"]  # queued in Redis, drained
        assert webpush_service.delivered(browser) == []  # in the foreground: no buzz
        await stream.close()
        await _until(lambda: not presence.watching(user_id=user.pk))
        await sync_to_async(turn)(2)

    async_to_sync(scenario)()
    assert [m["data"]["version"] for m in webpush_service.delivered(browser)] == [2]


def test_without_redis_nobody_counts_as_watching(settings):
    settings.REDIS_URL = None
    assert presence.watching(user_id=1) is False
