"""A long-poll's wait: until its log may have changed, the wait runs out, or the process stops."""

import time
from collections.abc import Awaitable, Callable

from events import shutdown
from events.subscriptions import Waiter


async def wait_for_change(
    *, channel: str, changed: Callable[[], Awaitable[bool]], seconds: float, since=None
) -> None:
    """Return when the log named by `channel` may have changed, or after `seconds`. Subscribes
    first, then asks `changed()` (the database), then waits, so a commit in between still wakes it.
    `since`, a `subscriptions.watch` mark taken before the caller's read, spares that first question
    when the channel stayed subscribed and quiet since."""
    end = time.monotonic() + seconds
    async with Waiter(channel=channel, since=since) as waiter:
        asked = waiter.quiet
        # A process told to stop answers at once with what it has (events/shutdown.py).
        while (left := end - time.monotonic()) > 0 and not shutdown.is_requested():
            if not asked and await changed():
                return
            asked = False
            if await waiter.wait(left):
                # Woken: something was committed on this log. The caller reads it once rather
                # than ask "anything new?" first.
                return
