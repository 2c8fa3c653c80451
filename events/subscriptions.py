"""Waiting for wake-ups: one Redis subscription per event loop, shared by every waiter in it.

Publishing is the services' side (infra/wakeups.py: after each commit, "game {id} changed", with
the entries appended where they fit); this is the event server's. A waiter subscribes to its log's
channel before it reads the log, so that a commit between the read and the wait still wakes it, and
a message that carries entries lets an open stream forward them without reading the database
(events/streams.py). A lost message only delays a waiter until its next read. Without Redis, or
while it is down, waiters fall back to re-reading the database every EVENTS_POLL_INTERVAL seconds.
"""

import asyncio
import contextlib
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

    __slots__ = ("woken", "messages", "lost", "gone")
    LIMIT = 64  # a waiter that does not take them (a long-poll) keeps this many, then "lost"

    def __init__(self, woken: asyncio.Event | None = None) -> None:
        # Two inboxes of one waiter (its log's, its reader's access channel) share one event.
        self.woken = woken or asyncio.Event()
        shutdown.wake_on_stop(self.woken)  # the stop wakes its waiter (Waiter.wait)
        self.messages: list[dict | None] = []
        self.lost = False
        self.gone = False  # its subscription went with a failed connection

    def deliver(self, message: dict | None) -> None:
        if len(self.messages) < self.LIMIT:
            self.messages.append(message)
        else:
            self.lost = True
        self.woken.set()

    def drop(self) -> None:
        """The connection failed: whatever came or was missed, the waiter must read."""
        self.lost = self.gone = True
        self.woken.set()



class _Hub:
    """One Redis pub/sub connection per event loop (per web worker), shared by every waiter in it.

    A connection per waiting long-poll made each woken client cost a TCP connect, a SUBSCRIBE and a
    close (docs/scaling.md "What breaks first, and what to change then"). Here a reader task owns
    the connection and sets the events of a channel's waiters when a message comes. A channel stays
    subscribed for LINGER_SECONDS after its last waiter leaves: a client comes back with its next
    long-poll at once, and a SUBSCRIBE and an UNSUBSCRIBE per long-poll were a tenth of a web
    worker's CPU under load. If the connection fails, every waiter is woken (they re-read the
    database) and the next waiter connects again.
    """

    CONFIRM_SECONDS = 1.0
    LINGER_SECONDS = 30.0

    def __init__(self) -> None:
        self._redis = None
        self._pubsub = None
        self._reader: asyncio.Task | None = None
        self._reading = None  # the connection `_reader` reads
        self._sender: asyncio.Task | None = None  # sends the SUBSCRIBE of the channels `_unsent`
        self._unsent: list[str] = []  # channels asked for since the last SUBSCRIBE was sent
        self._waiters: dict[str, set[_Inbox]] = {}
        self._confirmed: dict[str, asyncio.Event] = {}
        self._idle_since: dict[str, float] = {}  # subscribed channels nobody waits on, since when
        self._heard: dict[str, int] = {}  # messages received per subscribed channel
        self._swept = 0.0
        self._lock = asyncio.Lock()  # the sweep's and a failure's network calls, one at a time

    async def subscribe(self, channel: str, inbox: _Inbox | None = None) -> _Inbox:
        """An inbox the channel's messages go to, once Redis has confirmed the subscription (so a
        message published after this returns cannot be missed). Raises when Redis fails.

        The channels asked for while a SUBSCRIBE is being sent go together in the next one, and
        nothing waits on a lock: when a thousand clients opened their streams at once, each
        subscription held a lock across its own round trip, so the last waited for all the others
        in turn, a turn of a busy event loop each, for up to 48 s (docs/scaling.md "What breaks
        first, and what to change then")."""
        woken = inbox or _Inbox()
        if self._pubsub is None:
            import redis.asyncio as aioredis

            # Named, so that `CLIENT LIST` tells which process holds a subscription.
            self._redis = aioredis.Redis.from_url(
                settings.REDIS_URL, socket_connect_timeout=1, client_name=f"wakeups-{os.getpid()}"
            )
            self._pubsub = self._redis.pubsub()
        self._waiters.setdefault(channel, set()).add(woken)
        self._idle_since.pop(channel, None)
        confirmed = self._confirmed.get(channel)
        if confirmed is None:
            confirmed = self._confirmed[channel] = asyncio.Event()
            self._unsent.append(channel)
            if self._sender is None or self._sender.done():
                self._sender = asyncio.create_task(self._send_subscribe())
        if not confirmed.is_set():  # (a lingering subscription has nothing to wait for)
            try:
                await asyncio.wait_for(confirmed.wait(), self.CONFIRM_SECONDS)
            except TimeoutError:
                await self.unsubscribe(channel, woken)
                raise
        if woken.gone:  # the connection failed before the subscription was confirmed
            raise ConnectionError("Redis wake-up connection lost")
        return woken

    async def _send_subscribe(self) -> None:
        """SUBSCRIBE, in one command, every channel asked for until none is left unsent."""
        while self._unsent and self._pubsub is not None:
            pubsub, channels, self._unsent = self._pubsub, self._unsent, []
            try:
                await pubsub.subscribe(*channels)
            except Exception:  # noqa: BLE001 - every waiter wakes (its subscribe raises) and reads
                logger.warning("wake-up subscription failed", exc_info=True)
                async with self._lock:
                    if self._pubsub is pubsub:  # (not a connection made since)
                        await self._reset()
                continue
            if self._reader is None or self._reader.done() or self._reading is not pubsub:
                self._reading, self._reader = pubsub, asyncio.create_task(self._read(pubsub))

    async def unsubscribe(self, channel: str, woken: _Inbox) -> None:
        """This waiter is done; the channel itself lingers (LINGER_SECONDS) for the next one."""
        waiters = self._waiters.get(channel)
        if waiters is None:
            return
        waiters.discard(woken)
        if not waiters and channel in self._confirmed:
            self._idle_since[channel] = time.monotonic()
        elif not waiters:
            del self._waiters[channel]  # its subscription failed: nothing to keep

    async def _sweep(self) -> None:
        """Unsubscribe the channels nobody has waited on for LINGER_SECONDS."""
        now = time.monotonic()
        if now - self._swept < 1.0:
            return
        self._swept = now
        stale = [channel for channel, since in self._idle_since.items() if now - since >= self.LINGER_SECONDS]
        if not stale:
            return
        async with self._lock:
            gone = []
            for channel in stale:
                if self._waiters.get(channel) or channel not in self._idle_since:
                    continue  # someone came back meanwhile
                del self._idle_since[channel]
                self._waiters.pop(channel, None)
                self._confirmed.pop(channel, None)
                self._heard.pop(channel, None)
                gone.append(channel)
            # Written before anything else runs (no wait in between): a waiter that asks for one of
            # these channels from now on has its SUBSCRIBE sent after this UNSUBSCRIBE.
            if gone and self._pubsub is not None:
                with contextlib.suppress(Exception):
                    await self._pubsub.unsubscribe(*gone)

    def watch(self, channel: str):
        """A mark of the channel's state now if it is subscribed (else None), for `quiet_since`."""
        confirmed = self._confirmed.get(channel)
        if confirmed is None or not confirmed.is_set():
            return None
        return confirmed, self._heard.get(channel, 0)

    def quiet_since(self, channel: str, mark) -> bool:
        """The channel has stayed subscribed since `mark` (the same subscription) and no message
        came on it meanwhile."""
        if mark is None:
            return False
        confirmed, heard = mark
        return self._confirmed.get(channel) is confirmed and self._heard.get(channel, 0) == heard

    def subscribed(self) -> set[str]:
        """The channels this hub holds a subscription for (waited on or lingering)."""
        return set(self._confirmed)

    async def _read(self, pubsub) -> None:
        """Read `pubsub`'s messages until it fails or is replaced (a reset; the new one has its own
        reader)."""
        try:
            while self._pubsub is pubsub:
                message = await pubsub.get_message(timeout=1.0)
                await self._sweep()
                if message is None:
                    continue
                channel = message["channel"]
                channel = channel.decode() if isinstance(channel, bytes) else channel
                if message["type"] == "subscribe":
                    confirmed = self._confirmed.get(channel)
                    if confirmed is not None:
                        confirmed.set()
                elif message["type"] == "message":
                    if channel in self._confirmed:
                        self._heard[channel] = self._heard.get(channel, 0) + 1
                    waiters = self._waiters.get(channel)
                    if waiters:
                        carried = _parsed(message["data"])  # once for all of them; read only
                        for woken in waiters:
                            woken.deliver(carried)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the connection is gone: wake everyone, reconnect on demand
            async with self._lock:
                if self._pubsub is pubsub:  # (not a connection made since)
                    logger.warning("wake-up connection lost", exc_info=True)
                    await self._reset()

    async def _reset(self) -> None:
        """Drop the connection (lock held): every waiter wakes and re-reads; their channels are gone."""
        for waiters in self._waiters.values():
            for woken in waiters:
                woken.drop()
        for confirmed in self._confirmed.values():
            confirmed.set()
        self._waiters.clear()
        self._confirmed.clear()
        self._idle_since.clear()
        self._heard.clear()
        self._unsent.clear()
        pubsub, client, self._pubsub, self._redis = self._pubsub, self._redis, None, None
        with contextlib.suppress(Exception):
            if pubsub is not None:
                await pubsub.aclose()
        with contextlib.suppress(Exception):
            if client is not None:
                await client.aclose()


_hubs: dict[asyncio.AbstractEventLoop, _Hub] = {}


def _hub() -> _Hub:
    """The hub of the running event loop (a worker has one loop; tests may start several)."""
    return of_running_loop(_hubs, _Hub)


def watch(channel: str):
    """Mark the channel's state before reading its log (None if it is not subscribed in this
    process). A Waiter entered with the mark knows whether anything was published since, so a
    read made after the mark needs no second look before waiting (`Waiter.quiet`)."""
    if not settings.REDIS_URL:
        return None
    return _hub().watch(channel)


class Waiter:
    """Subscribe first, then re-read, then wait: a change between the read and the wait still wakes us.

    With `since` (a `watch` mark taken before a read), `quiet` after entering says that read
    needs no re-read: the channel was subscribed all along and nothing was published on it since
    the mark, and from now on a message wakes this waiter. A commit the read missed is published
    after the read began, so after the mark: it either came already (not quiet) or will wake us.
    """

    def __init__(
        self, *, channel: str, since=None, access: str | None = None, wake: asyncio.Event | None = None
    ):
        self.channel = channel
        self._woken: _Inbox | None = None
        # Set by the waiter's owner to end a wait at once (a stream closed by events/caps.py); while
        # polling, a wait ends at its poll interval instead.
        self._wake = wake
        # The reader's access channel (infra/wakeups.py `publish_access`), for a stream: a message
        # there wakes the waiter too, and `access_changed` says so.
        self.access = access
        self._access: _Inbox | None = None
        self._since = since
        self.quiet = False

    async def _subscribe(self) -> None:
        self._woken = await _hub().subscribe(self.channel, None if self._wake is None else _Inbox(self._wake))
        if self.access is not None:
            self._access = await _hub().subscribe(self.access, _Inbox(self._woken.woken))

    async def _unsubscribe(self) -> None:
        if self._woken is not None:
            await _hub().unsubscribe(self.channel, self._woken)
            self._woken = None
        if self._access is not None:
            await _hub().unsubscribe(self.access, self._access)
            self._access = None

    async def __aenter__(self) -> "Waiter":
        if settings.REDIS_URL:
            try:
                await self._subscribe()
                self.quiet = _hub().quiet_since(self.channel, self._since)
            except Exception:  # noqa: BLE001 - fall back to polling the database
                logger.warning("Redis unavailable; polling for %s", self.channel, exc_info=True)
                await self._unsubscribe()
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self._unsubscribe()

    def access_changed(self) -> bool:
        """Did a message come on the access channel since the last call (or may one have been
        missed)? Always False without a subscription: the caller then checks as it polls."""
        inbox = self._access
        if inbox is None or not (inbox.messages or inbox.lost):
            return False
        inbox.messages, inbox.lost = [], False
        return True

    @property
    def polling(self) -> bool:
        """No subscription (no Redis, or it failed): a wait ends after one poll interval with no
        word of whether anything changed, so the caller must read."""
        return self._woken is None

    async def wait(self, timeout: float) -> bool:
        """Wait for a wake-up; True if one came (something was published on the channel), False
        after `timeout`, (without Redis) after one poll interval, or as soon as the process is told
        to stop (events/shutdown.py)."""
        if self._woken is None:
            await shutdown.unless_stopping(asyncio.sleep(min(timeout, settings.EVENTS_POLL_INTERVAL)))
            return False
        if shutdown.is_requested():
            return False
        # The inbox's event is also set by the stop (`_Inbox`), so it is awaited alone, in this task.
        try:
            async with asyncio.timeout(timeout):
                await self._woken.woken.wait()
        except TimeoutError:
            return False
        if shutdown.is_requested():
            return False
        self._woken.woken.clear()
        if self._woken.gone or (self._access is not None and self._access.gone):
            # Its connection failed: subscribe again before the caller reads (so that nothing
            # committed after that read is missed), or poll if Redis is still away.
            await self._unsubscribe()
            try:
                await self._subscribe()
                # What came meanwhile is unknown: `take` says read, `access_changed` says check.
                self._woken.lost = True
                if self._access is not None:
                    self._access.lost = True
            except Exception:  # noqa: BLE001
                logger.warning("Redis unavailable; polling for %s", self.channel, exc_info=True)
                await self._unsubscribe()
        return True

    def take(self) -> list[dict | None] | None:
        """What the messages since the last take carried (None for one that carried nothing), or
        None when they cannot be known: no Redis, or some were lost (see `pushed`)."""
        inbox = self._woken
        if inbox is None or inbox.lost:
            if inbox is not None:
                inbox.lost = False
                inbox.messages = []
            return None
        messages, inbox.messages = inbox.messages, []
        return messages
