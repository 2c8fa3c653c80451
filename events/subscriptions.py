"""Waiting for wake-ups: one Redis subscription per event loop, shared by every waiter in it.

Publishing is the services' side (infra/wakeups.py: after each commit, "game {id} changed", with
the entries appended where they fit); this is the event server's. A waiter subscribes to its log's
channel before it reads the log, so that a commit between the read and the wait still wakes it, and
a message that carries entries lets an open stream forward them without reading the database
(events/streams.py). A lost message only delays a waiter until its next read. Without Redis, or
while it is down, waiters fall back to re-reading the database every EVENTS_POLL_INTERVAL seconds.

Three parts, each with one job:

* `_Connection`: one Redis pub/sub connection and its two tasks (one sends the SUBSCRIBEs asked for,
  batched; one reads what comes). It knows nothing of waiters: it reports each confirmation, each
  message and its own failure to the registry.
* `_Subscription`: one channel's state (`State`), moved only through `TRANSITIONS`, and its waiters.
* `_Registry`: the channels of one event loop, the connection they share, and the waiters' calls
  (`attach`, `detach`, `watch`). `Waiter` is what a request uses.
"""

import asyncio
import contextlib
import enum
import logging
import os
import time

import orjson
from django.conf import settings

from events import shutdown
from events.loops import of_running_loop

logger = logging.getLogger(__name__)


def pushed(messages: list | None, *, after: int) -> tuple[list[dict], int] | None:
    """The entries after `after` that `messages` (Waiter.take) carry, and the seq to follow from;
    None when they cannot stand for a read of the log: a message without entries, or one that does
    not follow `after` (an earlier one was lost, or they came out of order)."""
    if messages is None:
        return None
    entries: list[dict] = []
    for message in messages:
        if message is None:
            return None
        if message["last"] <= after:
            continue  # already read or forwarded
        if message["after"] > after:
            return None
        entries += [entry for entry in message["entries"] if entry["seq"] > after]
        after = message["last"]
    return entries, after


def _parsed(data) -> dict | None:
    """A message's entries (a dict with `after`, `last`, `entries`), or None for a bare wake-up."""
    if not isinstance(data, bytes | str) or not data.startswith(b"{" if isinstance(data, bytes) else "{"):
        return None
    try:
        message = orjson.loads(data)
        if isinstance(message.get("after"), int) and isinstance(message.get("last"), int):
            return message if isinstance(message.get("entries"), list) else None
    except (orjson.JSONDecodeError, AttributeError):
        pass
    return None


class _Inbox:
    """One waiter's side of a channel: set when a message comes, holding what it carried."""

    __slots__ = ("woken", "messages", "lost")
    LIMIT = 64  # a waiter that does not take them (a long-poll) keeps this many, then "lost"

    def __init__(self, woken: asyncio.Event | None = None) -> None:
        # Two inboxes of one waiter (its log's, its reader's access channel) share one event.
        self.woken = woken or asyncio.Event()
        shutdown.wake_on_stop(self.woken)  # the stop wakes its waiter (Waiter.wait)
        self.messages: list[dict | None] = []
        self.lost = False  # some messages were not kept: what came is unknown, the waiter must read

    def deliver(self, message: dict | None) -> None:
        if len(self.messages) < self.LIMIT:
            self.messages.append(message)
        else:
            self.lost = True
        self.woken.set()


class State(enum.Enum):
    """Where one channel's subscription is, in this process."""

    PENDING = "pending"  # SUBSCRIBE asked for or sent; Redis has not confirmed it yet
    LIVE = "live"  # confirmed, and waited on
    IDLE = "idle"  # confirmed, nobody waits; kept LINGER_SECONDS for the client's next long-poll
    CLOSED = "closed"  # unsubscribed, or its connection failed; out of the registry for good


class Change(enum.Enum):
    JOINED = "a waiter came"
    LAST_LEFT = "its last waiter left"
    CONFIRMED = "Redis confirmed the SUBSCRIBE"
    EXPIRED = "idle for LINGER_SECONDS"
    LOST = "the connection failed"


# Every move a subscription may make; any other is a bug (`_Subscription.move` raises).
TRANSITIONS: dict[State, dict[Change, State]] = {
    State.PENDING: {
        Change.JOINED: State.PENDING,
        Change.LAST_LEFT: State.PENDING,  # confirmed later, it goes LIVE then IDLE at once
        Change.CONFIRMED: State.LIVE,
        Change.LOST: State.CLOSED,
    },
    State.LIVE: {Change.JOINED: State.LIVE, Change.LAST_LEFT: State.IDLE, Change.LOST: State.CLOSED},
    State.IDLE: {Change.JOINED: State.LIVE, Change.EXPIRED: State.CLOSED, Change.LOST: State.CLOSED},
    State.CLOSED: {},
}


class _Subscription:
    """One channel: its state, its waiters' inboxes, and how many messages it has heard (which a
    `watch` mark compares)."""

    __slots__ = ("channel", "state", "inboxes", "heard", "idle_since", "settled")

    def __init__(self, channel: str) -> None:
        self.channel = channel
        self.state = State.PENDING
        self.inboxes: set[_Inbox] = set()
        self.heard = 0
        self.idle_since = 0.0
        # Set once it leaves PENDING (confirmed, or closed unconfirmed): what a new waiter awaits.
        self.settled = asyncio.Event()

    def move(self, change: Change) -> None:
        try:
            self.state = TRANSITIONS[self.state][change]
        except KeyError:
            where = f"subscription of {self.channel}: {change.value} while {self.state.value}"
            raise RuntimeError(where) from None
        if self.state is State.IDLE:
            self.idle_since = time.monotonic()
        if self.state is not State.PENDING:
            self.settled.set()
        if self.state is State.CLOSED:
            # Whatever came or was missed, its waiters must read (and subscribe again).
            for inbox in self.inboxes:
                inbox.lost = True
                inbox.woken.set()


class _Connection:
    """One Redis pub/sub connection: `subscribe` queues a channel for the next SUBSCRIBE (the
    channels asked for while one is on its way go together in the next), a reader task hands each
    confirmation and message to the registry, and any failure is reported to it once."""

    def __init__(self, registry: "_Registry") -> None:
        import redis.asyncio as aioredis

        # Named, so that `CLIENT LIST` tells which process holds a subscription.
        self.client = aioredis.Redis.from_url(
            settings.REDIS_URL, socket_connect_timeout=1, client_name=f"wakeups-{os.getpid()}"
        )
        self.pubsub = self.client.pubsub()
        self._registry = registry
        self._unsent: list[str] = []
        self._sender: asyncio.Task | None = None
        self._reader: asyncio.Task | None = None
        self.closed = False

    def subscribe(self, channel: str) -> None:
        self._unsent.append(channel)
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(self._send())

    async def unsubscribe(self, channels: list[str]) -> None:
        with contextlib.suppress(Exception):  # a failing connection is the reader's to report
            await self.pubsub.unsubscribe(*channels)

    async def _send(self) -> None:
        """SUBSCRIBE, in one command, every channel asked for until none is left unsent. Nothing
        waits on a lock: when a thousand clients opened their streams at once, each subscription
        held a lock across its own round trip, and the last waited up to 48 s (docs/scaling.md
        "What breaks first, and what to change then")."""
        while self._unsent and not self.closed:
            channels, self._unsent = self._unsent, []
            try:
                await self.pubsub.subscribe(*channels)
            except Exception:  # noqa: BLE001 - every waiter wakes (its attach raises) and reads
                logger.warning("wake-up subscription failed", exc_info=True)
                await self._registry.connection_lost(self)
                return
            if self._reader is None:
                self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            while not self.closed:
                message = await self.pubsub.get_message(timeout=1.0)
                await self._registry.sweep(self)
                if message is None:
                    continue
                channel = message["channel"]
                channel = channel.decode() if isinstance(channel, bytes) else channel
                if message["type"] == "subscribe":
                    self._registry.confirmed(channel)
                elif message["type"] == "message":
                    self._registry.heard(channel, message["data"])
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the connection is gone: wake everyone, reconnect on demand
            logger.warning("wake-up connection lost", exc_info=True)
            await self._registry.connection_lost(self)

    async def close(self) -> None:
        self.closed = True
        self._unsent.clear()
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()
        with contextlib.suppress(Exception):
            await self.client.aclose()


class _Registry:
    """The channels one event loop (one web worker) subscribes to, over one shared connection.

    A connection per waiting long-poll made each woken client cost a TCP connect, a SUBSCRIBE and a
    close (docs/scaling.md "What breaks first, and what to change then"). A channel stays IDLE for
    LINGER_SECONDS after its last waiter leaves: a client comes back with its next long-poll at
    once, and a SUBSCRIBE and an UNSUBSCRIBE per long-poll were a tenth of a web worker's CPU under
    load. If the connection fails, every subscription closes (its waiters wake and re-read the
    database) and the next waiter connects again.
    """

    CONFIRM_SECONDS = 1.0
    LINGER_SECONDS = 30.0
    SWEEP_SECONDS = 1.0

    def __init__(self) -> None:
        self.connection: _Connection | None = None
        self._channels: dict[str, _Subscription] = {}
        self._swept = 0.0

    async def attach(self, channel: str, inbox: _Inbox) -> _Subscription:
        """`inbox` gets the channel's messages from when this returns: Redis has confirmed the
        subscription, so nothing published from now on is missed. Raises when Redis fails."""
        if self.connection is None:
            self.connection = _Connection(self)
        subscription = self._channels.get(channel)
        if subscription is None:
            subscription = self._channels[channel] = _Subscription(channel)
            self.connection.subscribe(channel)
        subscription.move(Change.JOINED)
        subscription.inboxes.add(inbox)
        if not subscription.settled.is_set():  # (an IDLE or LIVE one has nothing to wait for)
            try:
                await asyncio.wait_for(subscription.settled.wait(), self.CONFIRM_SECONDS)
            except TimeoutError:
                self.detach(subscription, inbox)
                raise
        if subscription.state is State.CLOSED:  # the connection failed before Redis confirmed
            raise ConnectionError("Redis wake-up connection lost")
        return subscription

    def detach(self, subscription: _Subscription, inbox: _Inbox) -> None:
        """This waiter is done; the channel itself stays IDLE for the next one (LINGER_SECONDS)."""
        if subscription.state is State.CLOSED or inbox not in subscription.inboxes:
            return
        subscription.inboxes.discard(inbox)
        if not subscription.inboxes:
            subscription.move(Change.LAST_LEFT)

    def confirmed(self, channel: str) -> None:
        subscription = self._channels.get(channel)
        if subscription is not None and subscription.state is State.PENDING:
            subscription.move(Change.CONFIRMED)
            if not subscription.inboxes:
                subscription.move(Change.LAST_LEFT)

    def heard(self, channel: str, data) -> None:
        subscription = self._channels.get(channel)
        if subscription is None:
            return
        subscription.heard += 1
        if subscription.inboxes:
            carried = _parsed(data)  # once for all of them; read only
            for inbox in subscription.inboxes:
                inbox.deliver(carried)

    async def sweep(self, connection: _Connection) -> None:
        """Unsubscribe the channels IDLE for LINGER_SECONDS (at most once a second)."""
        now = time.monotonic()
        if connection is not self.connection or now - self._swept < self.SWEEP_SECONDS:
            return
        self._swept = now
        expired = [
            subscription
            for subscription in self._channels.values()
            if subscription.state is State.IDLE and now - subscription.idle_since >= self.LINGER_SECONDS
        ]
        for subscription in expired:
            subscription.move(Change.EXPIRED)
            del self._channels[subscription.channel]
        # Sent before anything else runs (no wait in between): a waiter that asks for one of these
        # channels from now on has its SUBSCRIBE sent after this UNSUBSCRIBE.
        if expired:
            await connection.unsubscribe([subscription.channel for subscription in expired])

    async def connection_lost(self, connection: _Connection) -> None:
        if connection is not self.connection:
            return  # an earlier connection's late report: its subscriptions are closed already
        self.connection = None
        channels, self._channels = self._channels, {}
        for subscription in channels.values():
            subscription.move(Change.LOST)
        await connection.close()

    def watch(self, channel: str):
        """A mark of the channel's state now if it is subscribed (else None), for `quiet_since`."""
        subscription = self._channels.get(channel)
        if subscription is None or subscription.state not in (State.LIVE, State.IDLE):
            return None
        return subscription, subscription.heard

    def quiet_since(self, channel: str, mark) -> bool:
        """The channel has stayed subscribed since `mark` (the same subscription) and no message
        came on it meanwhile."""
        if mark is None:
            return False
        subscription, heard = mark
        return self._channels.get(channel) is subscription and subscription.heard == heard

    def subscribed(self) -> set[str]:
        """The channels this registry holds a subscription for (waited on, pending or idle)."""
        return set(self._channels)


_registries: dict[asyncio.AbstractEventLoop, _Registry] = {}


def _registry() -> _Registry:
    """The registry of the running event loop (a worker has one loop; tests may start several)."""
    return of_running_loop(_registries, _Registry)


def watch(channel: str):
    """Mark the channel's state before reading its log (None if it is not subscribed in this
    process). A Waiter entered with the mark knows whether anything was published since, so a
    read made after the mark needs no second look before waiting (`Waiter.quiet`)."""
    if not settings.REDIS_URL:
        return None
    return _registry().watch(channel)


class Waiter:
    """Subscribe first, then re-read, then wait: a change between the read and the wait still wakes us.

    With `since` (a `watch` mark taken before a read), `quiet` after entering says that read
    needs no re-read: the channel was subscribed all along and nothing was published on it since
    the mark, and from now on a message wakes this waiter. A commit the read missed is published
    after the read began, so after the mark: it either came already (not quiet) or will wake us.
    """

    # A waiter that fell back to polling (Redis away, or too slow to confirm: a busy process just
    # started) tries to subscribe again at its first wait after this long, so that a stream does not
    # read the database every EVENTS_POLL_INTERVAL for the rest of its life over one slow moment.
    RESUBSCRIBE_SECONDS = 5.0

    def __init__(
        self, *, channel: str, since=None, access: str | None = None, wake: asyncio.Event | None = None
    ):
        self.channel = channel
        # Set by the waiter's owner to end a wait at once (a stream closed by events/caps.py); while
        # polling, a wait ends at its poll interval instead.
        self._wake = wake
        # The reader's access channel (infra/wakeups.py `publish_access`), for a stream: a message
        # there wakes the waiter too, and `access_changed` says so.
        self.access = access
        self._since = since
        self.quiet = False
        # (subscription, inbox) of the log's channel and of the access channel; None: polling.
        self._log: tuple[_Subscription, _Inbox] | None = None
        self._access: tuple[_Subscription, _Inbox] | None = None
        self._resubscribe_at = 0.0

    async def _subscribe(self) -> None:
        registry = _registry()
        inbox = _Inbox(self._wake)
        self._log = (await registry.attach(self.channel, inbox), inbox)
        if self.access is not None:
            access = _Inbox(inbox.woken)
            self._access = (await registry.attach(self.access, access), access)

    def _unsubscribe(self) -> None:
        for held in (self._log, self._access):
            if held is not None:
                _registry().detach(*held)
        self._log = self._access = None

    async def __aenter__(self) -> "Waiter":
        if settings.REDIS_URL:
            try:
                await self._subscribe()
                self.quiet = _registry().quiet_since(self.channel, self._since)
            except Exception:  # noqa: BLE001 - fall back to polling the database
                logger.warning("Redis unavailable; polling for %s", self.channel, exc_info=True)
                self._unsubscribe()
                self._resubscribe_at = time.monotonic() + self.RESUBSCRIBE_SECONDS
        return self

    async def __aexit__(self, *exc_info) -> None:
        self._unsubscribe()

    def access_changed(self) -> bool:
        """Did a message come on the access channel since the last call (or may one have been
        missed)? Always False without a subscription: the caller then checks as it polls."""
        if self._access is None:
            return False
        inbox = self._access[1]
        if not (inbox.messages or inbox.lost):
            return False
        inbox.messages, inbox.lost = [], False
        return True

    @property
    def polling(self) -> bool:
        """No subscription (no Redis, or it failed): a wait ends after one poll interval with no
        word of whether anything changed, so the caller must read."""
        return self._log is None

    async def wait(self, timeout: float) -> bool:
        """Wait for a wake-up; True if one came (something was published on the channel), False
        after `timeout`, (without Redis) after one poll interval, or as soon as the process is told
        to stop (events/shutdown.py). A polling waiter that subscribed again says True: what came
        meanwhile is unknown, so `take` says read and `access_changed` says check."""
        if self._log is None:
            await shutdown.unless_stopping(asyncio.sleep(min(timeout, settings.EVENTS_POLL_INTERVAL)))
            due = time.monotonic() >= self._resubscribe_at
            if settings.REDIS_URL and due and not shutdown.is_requested():
                return await self._resubscribe()
            return False
        if shutdown.is_requested():
            return False
        woken = self._log[1].woken
        # The inbox's event is also set by the stop (`_Inbox`), so it is awaited alone, in this task.
        try:
            async with asyncio.timeout(timeout):
                await woken.wait()
        except TimeoutError:
            return False
        if shutdown.is_requested():
            return False
        woken.clear()
        if any(held is not None and held[0].state is State.CLOSED for held in (self._log, self._access)):
            await self._resubscribe()
        return True

    async def _resubscribe(self) -> bool:
        """Subscribe again (the connection failed, or this waiter was polling) before the caller
        reads, so that nothing committed after that read is missed; or poll (False) if Redis is
        still away. What came meanwhile is unknown: `take` says read, `access_changed` says check."""
        self._unsubscribe()
        try:
            await self._subscribe()
        except Exception:  # noqa: BLE001
            logger.warning("Redis unavailable; polling for %s", self.channel, exc_info=True)
            self._unsubscribe()
            self._resubscribe_at = time.monotonic() + self.RESUBSCRIBE_SECONDS
            return False
        for held in (self._log, self._access):
            if held is not None:
                held[1].lost = True
        return True

    def take(self) -> list[dict | None] | None:
        """What the messages since the last take carried (None for one that carried nothing), or
        None when they cannot be known: no Redis, or some were lost (see `pushed`)."""
        if self._log is None:
            return None
        inbox = self._log[1]
        messages, inbox.messages = inbox.messages, []
        if inbox.lost:
            inbox.lost = False
            return None
        return messages
