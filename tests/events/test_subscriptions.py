"""events/subscriptions.py (with infra/wakeups.py publishing) on a real Redis: one shared pub/sub
connection per event loop serves every waiter; a message wakes exactly the waiters of its channel; a
lost connection wakes everyone and the next waiter connects again; nothing published after
`subscribe` returns is missed."""

import asyncio
import os
import time

import pytest

from events import subscriptions
from infra import wakeups
from tests.conftest import require_local_redis

REDIS_URL = "redis://127.0.0.1:6379/14"


@pytest.fixture(autouse=True)
def _redis(settings):
    require_local_redis(REDIS_URL)
    settings.REDIS_URL = REDIS_URL
    wakeups.client_reset()
    yield
    wakeups.client_reset()


async def _eventually(check, timeout: float = 15.0) -> bool:
    """Whether `check()` (a function, or a coroutine function) comes true within `timeout`: a test
    waits on the condition it needs, not on a guess at how long a loaded machine takes to get there."""
    end = time.monotonic() + timeout
    while True:
        result = check()
        if asyncio.iscoroutine(result):
            result = await result
        if result:
            return True
        if time.monotonic() > end:
            return False
        await asyncio.sleep(0.02)


def _count_subscribes(hub) -> list[tuple[str, ...]]:
    """The channels of each SUBSCRIBE the hub sends from now on (on its current connection)."""
    sent = []
    original = hub.connection.pubsub.subscribe

    async def counting(*channels):
        sent.append(channels)
        return await original(*channels)

    hub.connection.pubsub.subscribe = counting
    return sent


def _clients() -> int:
    import redis

    # This process's hub only: not the token memos' listeners (accounts/token_memo.py), nor the
    # hubs of other test processes, which subscribe and leave meanwhile.
    return sum(
        1
        for c in redis.Redis.from_url(REDIS_URL).client_list()
        if (c.get("cmd") == "subscribe" or int(c.get("sub", 0)) > 0)
        and c.get("name") == f"wakeups-{os.getpid()}"
    )


def test_many_waiters_share_one_connection_and_each_channel_wakes_its_own():
    async def scenario():
        before = _clients()
        async with (
            subscriptions.Waiter(channel="t:a") as a1,
            subscriptions.Waiter(channel="t:a") as a2,
            subscriptions.Waiter(channel="t:b") as b,
        ):
            assert _clients() - before == 1
            await asyncio.to_thread(wakeups._publish, "t:a", 1)
            woken = await asyncio.gather(a1.wait(2), a2.wait(2), b.wait(0.3))
            assert woken == [True, True, False]
        # Gone waiters leave their channels to linger on the same one connection (no new one).
        async with subscriptions.Waiter(channel="t:c"):
            assert _clients() - before == 1

    asyncio.run(scenario())


def test_a_message_published_between_subscribing_and_waiting_is_not_missed():
    async def scenario():
        async with subscriptions.Waiter(channel="t:early") as waiter:
            await asyncio.to_thread(wakeups._publish, "t:early", 7)
            await asyncio.sleep(0.2)  # the re-read of the database would happen here
            return await waiter.wait(2)

    assert asyncio.run(scenario()) is True


def test_a_waiter_times_out_without_a_message():
    async def scenario():
        async with subscriptions.Waiter(channel="t:quiet") as waiter:
            return await waiter.wait(0.3)

    assert asyncio.run(scenario()) is False


def test_a_lost_connection_wakes_the_waiters_and_the_next_one_reconnects():
    async def scenario():
        async with subscriptions.Waiter(channel="t:lost") as waiter:
            hub = subscriptions._registry()
            await hub.connection.pubsub.connection.disconnect()
            assert await waiter.wait(3) is True
        async with subscriptions.Waiter(channel="t:again") as again:
            await asyncio.to_thread(wakeups._publish, "t:again", 1)
            return await again.wait(2)

    assert asyncio.run(scenario()) is True


def test_without_redis_a_waiter_polls(settings):
    settings.REDIS_URL = None
    settings.EVENTS_POLL_INTERVAL = 0.05

    async def scenario():
        async with subscriptions.Waiter(channel="t:none") as waiter:
            return await waiter.wait(5)

    assert asyncio.run(scenario()) is False


def test_a_channel_lingers_for_the_next_long_poll_then_is_dropped(monkeypatch):
    import redis

    monkeypatch.setattr(subscriptions._Registry, "LINGER_SECONDS", 1.0)
    numsub = lambda: dict(redis.Redis.from_url(REDIS_URL).pubsub_numsub("t:linger"))[b"t:linger"]  # noqa: E731

    async def scenario():
        async with subscriptions.Waiter(channel="t:linger"):
            pass
        hub = subscriptions._registry()
        sent = _count_subscribes(hub)
        # The client's next long-poll, at once: no new SUBSCRIBE, and it is still woken.
        lingering = await asyncio.to_thread(numsub)
        async with subscriptions.Waiter(channel="t:linger") as again:
            await asyncio.to_thread(wakeups._publish, "t:linger", 1)
            woken = await again.wait(2)
            left = time.monotonic()  # (just before the waiter leaves)
        # Nobody comes back: the subscription is dropped after the linger (here and in Redis).
        dropped = await _eventually(lambda: "t:linger" not in hub.subscribed())
        unsubscribed = await _eventually(lambda: asyncio.to_thread(lambda: numsub() == 0))
        return lingering, sent, woken, dropped, unsubscribed, time.monotonic() - left

    lingering, sent, woken, dropped, unsubscribed, lingered = asyncio.run(scenario())
    assert lingering == 1 and sent == [] and woken is True
    assert dropped and unsubscribed and lingered >= 1.0


def test_a_watch_mark_says_whether_anything_was_published_since():
    """`watch` before a read, `quiet` after entering the waiter: quiet only if the channel stayed
    subscribed and silent in between; a message after entering still wakes a quiet waiter."""

    async def scenario():
        assert subscriptions.watch("t:mark") is None  # not subscribed in this process: no mark
        async with subscriptions.Waiter(channel="t:mark"):
            pass  # now it lingers
        silent = subscriptions.watch("t:mark")
        async with subscriptions.Waiter(channel="t:mark", since=silent) as quiet:
            await asyncio.to_thread(wakeups._publish, "t:mark", 1)
            quiet_woken = await quiet.wait(2)
        published = subscriptions.watch("t:mark")
        await asyncio.to_thread(wakeups._publish, "t:mark", 2)
        # The reader hears it while nobody waits: the channel's mark moves on.
        assert await _eventually(lambda: subscriptions.watch("t:mark") != published)
        async with subscriptions.Waiter(channel="t:mark", since=published) as noisy:
            pass
        async with subscriptions.Waiter(channel="t:mark") as unmarked:
            pass
        return quiet.quiet, quiet_woken, noisy.quiet, unmarked.quiet

    assert asyncio.run(scenario()) == (True, True, False, False)


def test_a_mark_does_not_survive_a_lost_connection():
    async def scenario():
        async with subscriptions.Waiter(channel="t:gone"):
            pass
        mark = subscriptions.watch("t:gone")
        hub = subscriptions._registry()
        await hub.connection.pubsub.connection.disconnect()
        # The reader notices and resets: the channel is no longer subscribed in this process.
        assert await _eventually(lambda: subscriptions.watch("t:gone") is None)
        async with subscriptions.Waiter(channel="t:gone", since=mark) as again:
            return mark is not None, again.quiet

    assert asyncio.run(scenario()) == (True, False)


def test_wait_for_change_skips_its_first_question_only_after_a_quiet_mark():
    from events.waiting import wait_for_change

    asked = []

    async def changed():
        asked.append(1)
        return True

    async def scenario():
        async with subscriptions.Waiter(channel="t:ask"):
            pass
        await wait_for_change(channel="t:ask", changed=changed, seconds=2, since=subscriptions.watch("t:ask"))
        quiet_questions = len(asked)  # none: it waited the full time (no message came)
        await wait_for_change(channel="t:ask", changed=changed, seconds=2)
        return quiet_questions, len(asked)

    assert asyncio.run(scenario()) == (0, 1)


def _entries(first: int, last: int) -> list[dict]:
    return [{"type": "play", "seq": seq} for seq in range(first, last + 1)]


def test_a_message_carries_what_the_commit_appended_to_every_waiter_of_its_channel():
    async def scenario():
        async with (
            subscriptions.Waiter(channel="t:carry") as one,
            subscriptions.Waiter(channel="t:carry") as two,
        ):
            message = wakeups.entries_message(after=4, entries=_entries(5, 6))
            await asyncio.to_thread(wakeups._publish, "t:carry", message)
            assert await one.wait(2) and await two.wait(2)
            return one.take(), two.take(), one.take()

    first, second, again = asyncio.run(scenario())
    assert first == second == [{"after": 4, "last": 6, "entries": _entries(5, 6)}]
    assert again == []  # taken once


def test_pushed_stands_for_a_read_only_for_the_entries_right_after_what_the_follower_has():
    def message(after, last):
        return {"after": after, "last": last, "entries": _entries(after + 1, last)}

    assert subscriptions.pushed([message(4, 6), message(6, 7)], after=4) == (_entries(5, 7), 7)
    # Entries already read (the read after subscribing saw them) are skipped, not sent twice.
    assert subscriptions.pushed([message(2, 4), message(4, 6)], after=5) == (_entries(6, 6), 6)
    assert subscriptions.pushed([], after=5) == ([], 5)
    assert subscriptions.pushed([message(6, 7)], after=4) is None  # seq 5 came in no message: read
    assert subscriptions.pushed([message(4, 6), None], after=4) is None  # a bare wake-up: read
    assert subscriptions.pushed(None, after=4) is None  # unknown (no Redis, lost messages): read


def test_a_bare_or_oversized_message_asks_for_a_read(monkeypatch):
    monkeypatch.setattr(wakeups, "MAX_ENTRIES_BYTES", 200)
    assert wakeups.entries_message(after=0, entries=_entries(1, 20)) is None

    async def scenario():
        async with subscriptions.Waiter(channel="t:bare") as waiter:
            await asyncio.to_thread(wakeups.publish, game_id=0, version=3)  # another channel
            await asyncio.to_thread(wakeups._publish, "t:bare", 3)  # as publish() without entries
            assert await waiter.wait(2)
            return waiter.take()

    taken = asyncio.run(scenario())
    assert taken == [None] and subscriptions.pushed(taken, after=0) is None


def test_a_waiter_that_does_not_take_its_messages_keeps_a_bounded_inbox_then_asks_for_a_read(monkeypatch):
    monkeypatch.setattr(subscriptions._Inbox, "LIMIT", 3)

    async def scenario():
        async with subscriptions.Waiter(channel="t:full") as waiter:
            for seq in range(1, 6):
                message = wakeups.entries_message(after=seq - 1, entries=_entries(seq, seq))
                await asyncio.to_thread(wakeups._publish, "t:full", message)
            await asyncio.sleep(0.3)
            assert await waiter.wait(2)
            lost = waiter.take()
            await asyncio.to_thread(
                wakeups._publish, "t:full", wakeups.entries_message(after=5, entries=_entries(6, 6))
            )
            assert await waiter.wait(2)
            return lost, waiter.take()

    lost, after = asyncio.run(scenario())
    assert lost is None  # two of five were dropped: the follower must read
    assert after == [{"after": 5, "last": 6, "entries": _entries(6, 6)}]  # and then it goes on


def test_after_a_lost_connection_a_waiter_asks_for_a_read_and_is_subscribed_again():
    async def scenario():
        async with subscriptions.Waiter(channel="t:resub") as waiter:
            await subscriptions._registry().connection.pubsub.connection.disconnect()
            assert await waiter.wait(3) is True
            lost = waiter.take()
            message = wakeups.entries_message(after=1, entries=_entries(2, 2))
            await asyncio.to_thread(wakeups._publish, "t:resub", message)
            assert await waiter.wait(3) is True
            return lost, waiter.take()

    lost, taken = asyncio.run(scenario())
    assert lost is None
    assert taken == [{"after": 1, "last": 2, "entries": _entries(2, 2)}]


def test_a_game_message_says_its_version_beside_the_entries():
    async def scenario():
        async with subscriptions.Waiter(channel=wakeups.channel_name(424242)) as waiter:
            await asyncio.to_thread(
                wakeups.publish, game_id=424242, version=7, after=4, entries=_entries(5, 5)
            )
            assert await waiter.wait(2)
            return waiter.take()

    assert asyncio.run(scenario()) == [{"version": 7, "after": 4, "last": 5, "entries": _entries(5, 5)}]


@pytest.fixture
def stop_mark():
    from events import shutdown

    shutdown.reset()
    yield shutdown
    shutdown.reset()


def test_the_stop_releases_a_subscribed_waiter_at_once_and_later_waits_do_not_start(stop_mark):
    # A waiter awaits its inbox alone (no task racing it against the stop): the stop sets the inbox.
    async def scenario():
        loop = asyncio.get_running_loop()
        async with subscriptions.Waiter(channel="t:stopping") as waiter:
            assert not waiter.polling
            started = loop.time()
            waiting = asyncio.ensure_future(waiter.wait(30))
            await asyncio.sleep(0.1)
            assert not waiting.done()
            stop_mark.request()
            released = await asyncio.wait_for(waiting, timeout=10)
            released_after = loop.time() - started
            # Told to stop, not woken: the caller must not take this for a message.
            later = await asyncio.wait_for(waiter.wait(30), timeout=10)
        return released, released_after, later

    released, released_after, later = asyncio.run(scenario())
    assert released is False and later is False
    assert released_after < 5, released_after


def test_many_waiters_entering_at_once_share_few_subscribes_and_each_is_woken():
    """A thousand streams opening together: the channels asked for while a SUBSCRIBE is on its way
    go in the next one, not each in a round trip of its own behind a lock; every waiter is
    subscribed (confirmed) when it enters, so a message published right after wakes it."""
    channels = [f"t:burst:{i}" for i in range(300)]

    async def scenario():
        async with subscriptions.Waiter(channel="t:burst:first"):  # the connection, made
            pass
        sent = _count_subscribes(subscriptions._registry())
        waiters = [subscriptions.Waiter(channel=channel) for channel in channels]
        await asyncio.gather(*(waiter.__aenter__() for waiter in waiters))
        try:
            assert not any(waiter.polling for waiter in waiters)  # all subscribed, none fell back
            await asyncio.to_thread(lambda: [wakeups._publish(channel, 1) for channel in channels])
            woken = await asyncio.gather(*(waiter.wait(5) for waiter in waiters))
        finally:
            await asyncio.gather(*(waiter.__aexit__(None, None, None) for waiter in waiters))
        return sent, woken

    sent, woken = asyncio.run(scenario())
    assert sorted(name for names in sent for name in names) == sorted(channels)  # each once
    assert len(sent) <= 3  # one round trip for the burst (the first, then whatever came meanwhile)
    assert all(woken)


def test_a_failed_subscribe_wakes_its_waiters_with_an_error_and_the_next_one_connects_again(monkeypatch):
    """The SUBSCRIBE cannot be sent: each waiter entering meanwhile falls back to polling the
    database (never waits out its timeout on a subscription that will not come), and the next
    waiter makes a new connection."""

    async def scenario():
        hub = subscriptions._registry()
        async with subscriptions.Waiter(channel="t:fail:first"):
            pass

        async def failing(*names):
            raise ConnectionError("refused")

        hub.connection.pubsub.subscribe = failing
        waiters = [subscriptions.Waiter(channel=f"t:fail:{i}") for i in range(3)]
        await asyncio.gather(*(waiter.__aenter__() for waiter in waiters))
        fell_back = [waiter.polling for waiter in waiters]
        async with subscriptions.Waiter(channel="t:fail:again") as again:
            polling_again = again.polling
            await asyncio.to_thread(wakeups._publish, "t:fail:again", 1)
            woken = await again.wait(2)
        return fell_back, polling_again, woken

    fell_back, polling_again, woken = asyncio.run(scenario())
    assert fell_back == [True, True, True]
    assert polling_again is False and woken is True


def test_a_subscription_moves_only_as_its_table_says():
    async def scenario():
        subscription = subscriptions._Subscription("t:table")
        steps = [subscriptions.Change.JOINED, subscriptions.Change.CONFIRMED, subscriptions.Change.LAST_LEFT]
        states = []
        for change in steps:
            subscription.move(change)
            states.append(subscription.state)
        with pytest.raises(RuntimeError):
            subscription.move(subscriptions.Change.CONFIRMED)  # confirmed twice: a bug, not a state
        subscription.move(subscriptions.Change.EXPIRED)
        return states, subscription.state, subscription.settled.is_set()

    states, last, settled = asyncio.run(scenario())
    assert states == [subscriptions.State.PENDING, subscriptions.State.LIVE, subscriptions.State.IDLE]
    assert last is subscriptions.State.CLOSED and settled


def test_a_waiter_that_fell_back_to_polling_subscribes_again_at_a_later_wait(monkeypatch):
    """One slow moment (a SUBSCRIBE refused, or not confirmed in time) does not leave a stream
    reading the database every poll interval for the rest of its life."""
    monkeypatch.setattr(subscriptions.Waiter, "RESUBSCRIBE_SECONDS", 0.0)

    async def scenario():
        hub = subscriptions._registry()
        async with subscriptions.Waiter(channel="t:retry:first"):
            pass
        working = hub.connection.pubsub.subscribe

        async def failing(*names):
            raise ConnectionError("refused")

        hub.connection.pubsub.subscribe = failing
        async with subscriptions.Waiter(channel="t:retry") as waiter:
            fell_back = waiter.polling
            if hub.connection is not None:
                hub.connection.pubsub.subscribe = working
            resubscribed = await waiter.wait(2)  # True: subscribed again, what came is unknown
            unknown = waiter.take()
            await asyncio.to_thread(wakeups._publish, "t:retry", 1)
            woken = await waiter.wait(2)
            return fell_back, resubscribed, waiter.polling, unknown, woken

    fell_back, resubscribed, polling, unknown, woken = asyncio.run(scenario())
    assert fell_back and resubscribed and not polling
    assert unknown is None  # read: the messages of the polling time were never heard
    assert woken
