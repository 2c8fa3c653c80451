"""Per-user caps of the event server: how many streams and waiting long-polls one user holds.

A user holds at most EVENTS_MAX_STREAMS_PER_USER open streams in this process, across all his
tokens; a new one closes his oldest. Refusing the new one instead would lock out an honest client
that reconnects after a network switch: its old stream's dead TCP connection is not noticed until a
write to it fails, which may take minutes, and until then it would hold a place. A client cycling
opens gains nothing this way: he can only displace his own streams. A closed stream tells its client
to come back slowly (`retry`, events/streams.py), so that one with more live streams than the cap
takes turns rather than reconnect in a loop.

A user has at most EVENTS_MAX_LONG_POLLS_PER_USER long-polls waiting in this process; one more is
refused `429 throttled`, with Retry-After the time until his oldest wait ends (at most
EVENTS_MAX_WAIT). Answering the oldest at once instead would have such a client re-poll in a loop.

The counts are per process (per event loop): a deployment of P event-server processes holds at
most P times the cap per user. What they bound is what one process spends on one account.
"""

import asyncio
import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from django.conf import settings
from rest_framework.exceptions import Throttled

from events import presence
from events.loops import of_running_loop


@dataclass(eq=False)
class StreamSlot:
    """One open stream's place; `close` ends it (its stream checks `closed` after each wait)."""

    wake: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False

    def close(self) -> None:
        self.closed = True
        self.wake.set()


class _Held:
    """One event loop's open streams (oldest first) and long-polls' deadlines, per user."""

    def __init__(self) -> None:
        self.streams: dict[int, list[StreamSlot]] = {}
        self.long_polls: dict[int, list[float]] = {}


_held: dict[asyncio.AbstractEventLoop, _Held] = {}


def _of_loop() -> _Held:
    return of_running_loop(_held, _Held)


@contextlib.contextmanager
def stream_held(*, user_id: int) -> Iterator[StreamSlot]:
    """A place for one of `user_id`'s streams while the block runs; his oldest ones are closed so
    that he holds at most EVENTS_MAX_STREAMS_PER_USER."""
    streams = _of_loop().streams
    slots = streams.setdefault(user_id, [])
    slot = StreamSlot()
    slots.append(slot)
    while len(slots) > settings.EVENTS_MAX_STREAMS_PER_USER:
        slots.pop(0).close()
    presence.hold(user_id)  # a foreground app: no `your_turn` push (events/presence.py)
    try:
        yield slot
    finally:
        presence.release(user_id)
        if slot in slots:
            slots.remove(slot)
        if not slots and streams.get(user_id) is slots:
            del streams[user_id]


@contextlib.contextmanager
def long_poll_held(*, user_id: int, seconds: float) -> Iterator[None]:
    """A place for one of `user_id`'s long-polls that waits up to `seconds`, or `Throttled` (429)
    when he already has EVENTS_MAX_LONG_POLLS_PER_USER waiting."""
    long_polls = _of_loop().long_polls
    deadlines = long_polls.setdefault(user_id, [])
    now = time.monotonic()
    if len(deadlines) >= settings.EVENTS_MAX_LONG_POLLS_PER_USER:
        raise Throttled(
            wait=max(1.0, min(deadlines, default=now) - now),
            detail="Too many of your long-polls are waiting at once; retry when one is answered.",
        )
    deadline = now + seconds
    deadlines.append(deadline)
    presence.hold(user_id)
    try:
        yield
    finally:
        presence.release(user_id, linger=True)
        deadlines.remove(deadline)
        if not deadlines and long_polls.get(user_id) is deadlines:
            del long_polls[user_id]
