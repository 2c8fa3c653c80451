"""Server-Sent Events: how a followed log is written as a stream and followed until it ends.

A stream starts with its log's JSON answer (the same read, checks and redaction as a long-poll's),
written as entries `id: <seq>` / `event: <type>` / `data: <the entry's JSON>`; a reconnecting client's
`Last-Event-ID` stands for `after`. Then it follows: it subscribes to the log's wake-up channel and
to its reader's access channel, reads the log once (what committed before the subscription), and
from then on forwards the entries each wake-up carries without a read, falling back to a read when
a wake-up cannot stand for one (it carried nothing, or not what follows).

What a stream never does is send an entry its reader may no longer see. Its reader's rights are
checked again (the token, the ban, the `read` scope, then the log's own access in the read) at once
when his access channel says they changed (he left the table, was banned, a token was revoked:
infra/wakeups.py `publish_access`), when his token's expiry comes, and every
EVENTS_SSE_CHECK_SECONDS in case a wake-up was lost; while polling (no Redis), at every read. An
entry a wake-up carries that is addressed to some seats only (`private_to`) is never forwarded from
the wake-up: the stream reads the log instead, and the read redacts by the reader's seat as it is
then, whatever order the wake-ups came in.

A comment line goes out every EVENTS_SSE_KEEPALIVE seconds of quiet. A stream ends after
EVENTS_SSE_MAX_SECONDS, when its log says so (a deal's last entry), when the reader may no longer
read it, when the server is too busy to read it (the client reconnects after `retry` from its
Last-Event-ID, missing nothing), when the process is told to stop, or when a newer stream of the
same user takes its place (events/caps.py): then it first tells its client to come back only after
CLOSED_RETRY_MS.
"""

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime

import orjson
from django.conf import settings
from django.utils import timezone

from events import shutdown
from events.caps import StreamSlot
from events.subscriptions import Waiter, pushed
from infra.api.busy import server_busy

# A stream closed for a newer one of its user's (events/caps.py) asks its client to wait this long
# before reconnecting: a client with more live streams than the cap then takes turns slowly rather
# than have its streams close one another every two seconds. A client's next stream sets 2 s again.
CLOSED_RETRY_MS = 30_000
CLOSED = f"retry: {CLOSED_RETRY_MS}\n: closed: a newer stream of yours took its place\n\n"


def entries(events: list[dict]) -> str:
    """Each log entry as `id: <seq>` / `event: <type>` / `data: <the entry's JSON>`."""
    return "".join(
        f"id: {event['seq']}\nevent: {event['type']}\ndata: {orjson.dumps(event).decode()}\n\n"
        for event in events
    )


@dataclass(frozen=True)
class Page:
    """A read of a log: its entries after `after`, the seq to follow from, and whether more wait."""

    events: list[dict]
    last_seq: int
    more: bool = False


@dataclass(frozen=True)
class FollowedLog:
    """What a stream needs to know of one log."""

    title: str  # the stream's first comment line
    channel: str  # its wake-up channel
    # The entries after a seq, as the reader may see them now; None: he may no longer read the log.
    # Synchronous (it runs in a worker thread).
    read: Callable[[int], Page | None]
    # Which entries a wake-up carries the reader may see (at his seat as of the last read).
    visible: Callable[[dict], bool] = field(default=lambda entry: True)
    # An entry only some seats may see: forwarded only through a read (see the module's docstring).
    private: Callable[[dict], bool] = field(default=lambda entry: False)
    ends: Callable[[dict], bool] = field(default=lambda entry: False)  # nothing comes after this entry


# What a stream asks of its request, in one thread hop: when `check` is set, may the reader still
# read (his token, ban and scope); then the log after a seq (the read is skipped when he may not).
ReadChecked = Callable[[int, bool], Awaitable[tuple[bool, Page | None]]]


def _due(moment: datetime | None) -> float:
    """Seconds until `moment` (a token's expiry), or infinity."""
    if moment is None:
        return float("inf")
    return max(0.0, (moment - timezone.now()).total_seconds())


async def follow(
    log: FollowedLog,
    *,
    first: dict,
    read: ReadChecked,
    access_channel: str,
    expires_at: datetime | None,
    slot: StreamSlot,
) -> AsyncIterator[str]:
    started = time.monotonic()
    end = started + settings.EVENTS_SSE_MAX_SECONDS
    checked = written = started
    # When the token runs out unless it was used meanwhile (a login token's expiry slides): look again.
    expiry = started + _due(expires_at)
    yield f"retry: 2000\n: {log.title}\n\n"
    if first["events"]:
        yield entries(first["events"])
        if any(log.ends(event) for event in first["events"]):
            return
    after = first["last_seq"]
    async with Waiter(channel=log.channel, access=access_channel, wake=slot.wake) as waiter:
        # Subscribed, so read: what committed between the first read and the subscription.
        pending: list[dict] | None = None  # what the last wake-up carried; None: read the log
        # Checked as it subscribes too: a right lost between the first read and the subscription
        # was published before anyone listened.
        check = True
        while (left := end - time.monotonic()) > 0 and not shutdown.is_requested():
            if slot.closed:
                yield CLOSED
                return
            now = time.monotonic()
            check = (
                check
                or waiter.polling
                or now - checked >= settings.EVENTS_SSE_CHECK_SECONDS
                or now >= expiry
            )
            more = False
            if check or pending is None:
                try:
                    allowed, page = await read(after, check)
                except Exception as exc:
                    if not server_busy(exc):
                        raise
                    return  # overloaded: ended as at its time limit; the client reconnects
                if not allowed or page is None:
                    return
                if check:
                    checked, check = time.monotonic(), False
                    expiry = float("inf") if expiry <= checked else expiry
                pending, after, more = page.events, page.last_seq, page.more
            if pending:
                yield entries(pending)
                written = time.monotonic()
                if any(log.ends(event) for event in pending):
                    return
            pending = None
            if more:
                continue  # a full page: there is more to read at once
            # Whatever commits from here on wakes the waiter (it was subscribed before the read),
            # and its message says what was appended.
            now = time.monotonic()
            timeout = min(
                left,
                settings.EVENTS_SSE_KEEPALIVE,
                max(0.0, checked + settings.EVENTS_SSE_CHECK_SECONDS - now),
                max(0.0, expiry - now),
            )
            woke = await waiter.wait(timeout)
            if waiter.access_changed():
                # The reader's rights changed: check them before anything else is sent, and read
                # rather than forward what came meanwhile (the read redacts as his rights are now).
                waiter.take()
                check = True
            elif woke and not waiter.polling:
                carried = pushed(waiter.take(), after=after)
                if carried is not None and not any(log.private(entry) for entry in carried[0]):
                    pending = [entry for entry in carried[0] if log.visible(entry)]
                    after = carried[1]
                # else: read (a message that cannot stand for a read, or an entry for some seats)
            elif not woke and not waiter.polling:
                pending = []  # quiet: nothing to read (a check, if due, comes at the loop's top)
            now = time.monotonic()
            if now - written >= settings.EVENTS_SSE_KEEPALIVE:
                yield ": keep-alive\n\n"
                written = now
