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

A comment line goes out every EVENTS_SSE_KEEPALIVE seconds (the response's, events/app.py). A
stream ends after EVENTS_SSE_MAX_SECONDS, when its log says so (a deal's last entry), when the reader
may no longer read it, when the server is too busy to read it (the client reconnects after `retry`
from its Last-Event-ID, missing nothing), when the process is told to stop, when its client goes
away, or when a newer stream of the same user takes its place (events/caps.py): then it first tells
its client to come back only after CLOSED_RETRY_MS.
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
CLOSED = f"retry: {CLOSED_RETRY_MS}\n: closed: a newer stream of yours took its place\n\n".encode()


def _opening(title: str) -> bytes:
    # `retry` first: a client that reconnects comes back after 2 s (CLOSED asks for longer).
    return f"retry: 2000\n: {title}\n\n".encode()


def entries(events: list[dict]) -> bytes:
    """Each log entry as `id: <seq>` / `event: <type>` / `data: <the entry's JSON>`, in one chunk.
    (Written here rather than by sse-starlette's ServerSentEvent: the JSON has no line break to
    split, and this is on the path of every entry to every stream.)"""
    return b"".join(
        b"id: %d\nevent: %s\ndata: %s\n\n" % (event["seq"], event["type"].encode(), orjson.dumps(event))
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


def _ends(log: FollowedLog, events: list[dict]) -> bool:
    return any(log.ends(event) for event in events)


async def follow(
    log: FollowedLog,
    *,
    first: dict,
    read: ReadChecked,
    access_channel: str,
    expires_at: datetime | None,
    slot: StreamSlot,
) -> AsyncIterator[bytes]:
    """The stream's body, chunk by chunk: the opening, the first read's entries, then one loop.

    Each turn of the loop, in order:

    1. closed for a newer stream of the same user (events/caps.py)? Say so, and end;
    2. read the log if something asks for it: the first turn (what committed between the first read
       and the subscription), a full page, a wake-up that cannot stand for a read, or a check of the
       reader that is due (his access channel spoke, his token's expiry came, EVENTS_SSE_CHECK_SECONDS
       passed, or no Redis: every read checks). Send what it found; end if the reader was refused,
       the log ended, or the server is too busy to read (the client reconnects from Last-Event-ID);
    3. wait for a wake-up until the next check is due;
    4. sort what woke it: his access changed (check at the next turn, and read rather than forward),
       a message that carries what follows (forward it now, less what his seat may not see), or
       anything else (read at the next turn).

    The loop ends at EVENTS_SSE_MAX_SECONDS or when the process is told to stop. Keep-alive comments
    and the client's going away are the response's (sse-starlette: events/app.py), not this loop's.
    Two moments only: `end`, and `check_due`, when the reader is checked next.
    """
    yield _opening(log.title)
    if first["events"]:
        yield entries(first["events"])
        if _ends(log, first["events"]):
            return
    after = first["last_seq"]
    now = time.monotonic()
    end = now + settings.EVENTS_SSE_MAX_SECONDS
    # The token runs out at `expiry` unless used meanwhile (a login token's expiry slides): a check
    # is due then; once it has passed, checks come every EVENTS_SSE_CHECK_SECONDS alone.
    expiry = now + _due(expires_at)
    async with Waiter(channel=log.channel, access=access_channel, wake=slot.wake) as waiter:
        must_read = True  # subscribed now, so read: what committed before the subscription
        check_due = now  # and check: a right lost meanwhile was published before anyone listened
        while not shutdown.is_requested() and (now := time.monotonic()) < end:
            if slot.closed:
                yield CLOSED
                return
            check = waiter.polling or now >= check_due
            if must_read or check:
                try:
                    allowed, page = await read(after, check)
                except Exception as exc:
                    if not server_busy(exc):
                        raise
                    return  # overloaded: ended as at its time limit; the client reconnects
                if not allowed or page is None:
                    return
                if check:
                    now = time.monotonic()
                    check_due = min(now + settings.EVENTS_SSE_CHECK_SECONDS, expiry if expiry > now else end)
                after, must_read = page.last_seq, page.more  # a full page: read on at once
                if page.events:
                    yield entries(page.events)
                    if _ends(log, page.events):
                        return
                if must_read:
                    continue
            # Whatever commits from here on wakes the waiter (it was subscribed before the read),
            # and its message says what was appended.
            woke = await waiter.wait(max(0.0, min(end, check_due) - time.monotonic()))
            if waiter.access_changed():
                waiter.take()  # read instead: the read redacts as his rights are now
                check_due = 0.0
            elif woke and not waiter.polling:
                carried = pushed(waiter.take(), after=after)
                if carried is None or any(log.private(entry) for entry in carried[0]):
                    must_read = True  # (an entry for some seats is sent only through a read)
                    continue
                visible, after = [entry for entry in carried[0] if log.visible(entry)], carried[1]
                if visible:
                    yield entries(visible)
                    if _ends(log, visible):
                        return
