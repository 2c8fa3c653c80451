"""Long-polling for every log a client follows (game events, table events, a user's feed).

The DRF view answers at once; this async wrapper waits only when the answer is "nothing after
`after`", so a waiting client holds no worker thread (ARCHITECTURE.md "Processes"). It subscribes to
the log's wake-up channel first, then re-checks, then waits, so a change between the read and the
wait still wakes it; the answer is always re-read from the database (a wake-up's rows, if it carries
any, are for open streams: config/api/sse.py).
"""

import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections
from django.views.decorators.csrf import csrf_exempt

from config import shutdown, wakeups

T = TypeVar("T")


def _params(request) -> tuple[int, float] | None:
    try:
        after = int(request.GET.get("after", 0))
        wait = float(request.GET.get("wait", 0))
    except ValueError:
        return None
    if after < 0 or not wait > 0:
        return None
    return after, min(wait, float(settings.EVENTS_MAX_WAIT))


async def wait_for_change(
    *, channel: str, changed: Callable[[], Awaitable[bool]], seconds: float, since=None
) -> None:
    """Return when the log named by `channel` may have changed, or after `seconds`. Subscribes
    first, then asks `changed()` (the database), then waits, so a commit in between still wakes it.
    `since`, a `wakeups.watch` mark taken before the caller's read, spares that first question when
    the channel stayed subscribed and quiet since (a query and a thread hop per waiting poll)."""
    end = time.monotonic() + seconds
    async with wakeups.Waiter(channel=channel, since=since) as waiter:
        asked = waiter.quiet
        # A process told to stop answers at once with what it has (config/shutdown.py).
        while (left := end - time.monotonic()) > 0 and not shutdown.is_requested():
            if not asked and await changed():
                return
            asked = False
            if await waiter.wait(left):
                # Woken: something was committed on this log. The caller reads it once rather
                # than check "anything new?" first (a query and a thread hop per woken poll).
                return


def connections_release() -> None:
    """Give this thread's database connections back (to the pool, or closed): a waiting client must
    not hold one for its whole wait. With a pool (DB_POOL_MAX_SIZE) a few long-polls would take
    every connection and the next requests time out; without one, each waiting client would keep a
    PostgreSQL backend open. One inside a transaction (a test's, say) is not ours to close."""
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()


def then_release(function: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    """`function` (a DRF view, a check), async-wrapped, giving its database connections back in the
    same thread hop, before its answer reaches the event loop. A long-poll then waits, and a stream
    follows, holding none; released a hop later instead (a stream's at its first read, after the
    response's start and the wake-up subscription), each connection stayed taken for turns of a busy
    event loop: with a thousand clients opening streams, every connection of the pool was taken that
    way and requests waited out the pool's timeout into 503s (docs/scaling.md, ninth session)."""

    def call(*args, **kwargs) -> T:
        try:
            return function(*args, **kwargs)
        finally:
            connections_release()

    return sync_to_async(call)


def long_poll_view(
    api_class: type,
    *,
    channel: Callable[..., str],
    changed: Callable[..., bool],
):
    """An async view around `api_class` (a DRF APIView whose 200 answer has `last_seq`).

    `channel(request, **kwargs)` names the wake-up channel; `changed(request, after, **kwargs)` says,
    from the database, whether there is anything after `after` now.
    """
    view_released = then_release(api_class.as_view())
    changed_async = then_release(changed)

    async def view(request, **kwargs):
        response = await view_released(request, **kwargs)
        params = _params(request)
        # Errors, a wait of 0 and a non-empty answer go back at once; only "nothing new" waits.
        if params is None or response.status_code != 200 or response.data["last_seq"] > params[0]:
            return response
        after, wait = params
        await wait_for_change(
            channel=channel(request, **kwargs),
            changed=lambda: changed_async(request, after, **kwargs),
            seconds=wait,
        )
        return await view_released(request, **kwargs)

    view = csrf_exempt(view)
    # drf-spectacular documents a URL by its callback's `cls`: describe this view as the DRF one.
    view.cls = api_class
    view.initkwargs = {}
    return view
