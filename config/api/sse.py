"""Server-Sent Events: how the API's two streams (a deal's log, a user's feed) start, write and follow.

A stream is its log's DRF view answered first, then followed. `stream_view` runs the view as a JSON
request (token, scope, ban, throttle, access and parameters checked as for any request, errors
answered in the one error shape); a reconnecting client's `Last-Event-ID` stands for `after`. Then
`_follow` writes what the view answered and whatever comes after it: it subscribes to the log's
wake-up channel, reads the log once (what committed before the subscription), and from then on
forwards the entries each wake-up carries (config/wakeups.py) without a read or a thread hop,
falling back to a read when a wake-up cannot stand for one (it carried nothing, or not what
follows). Every EVENTS_SSE_CHECK_SECONDS it checks the caller's token again and reads the log, in
one thread hop (a lost wake-up costs at most that delay); a comment line goes out every
EVENTS_SSE_KEEPALIVE seconds of quiet. It ends after EVENTS_SSE_MAX_SECONDS, when its log says so
(a deal's last event), when the caller may no longer read it, or when the process is told to stop.
"""

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import orjson
from django.conf import settings
from django.http import HttpResponse, StreamingHttpResponse

from config import shutdown, wakeups
from config.api.busy import server_busy
from config.api.long_poll import then_release


def wants_stream(request) -> bool:
    """The client asked for the stream form (`Accept: text/event-stream`), as EventSource does."""
    return "text/event-stream" in request.META.get("HTTP_ACCEPT", "")


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
    """What `_follow` needs to know of one log."""

    title: str  # the stream's first comment line
    channel: str  # its wake-up channel
    # The entries after a seq (None: no longer allowed); synchronous, run in the request's thread.
    read: Callable[[int], Page | None]
    # Which pushed entries this caller may see (a read applies the same rule itself).
    visible: Callable[[dict], bool] = field(default=lambda entry: True)
    ends: Callable[[dict], bool] = field(default=lambda entry: False)  # nothing comes after this entry


def _resume_from_last_event_id(request) -> None:
    """A reconnecting EventSource names the last entry it got in `Last-Event-ID`: it stands for
    `after` (and is validated as `after` is). A value that is not a seq is ignored."""
    value = request.META.get("HTTP_LAST_EVENT_ID", "")
    if value.isdigit() and len(value) <= 18:
        request.GET = request.GET.copy()
        request.GET["after"] = value


async def stream_view(
    request,
    *,
    view: Callable[..., Awaitable[HttpResponse]],
    log: Callable[[], FollowedLog],
    token_vouched: Callable[[object], bool],
    **kwargs,
) -> HttpResponse:
    """Answer `request` as a stream of the log `view` (a DRF view answering `{"events", "last_seq"}`,
    wrapped by long_poll.then_release) reads, or with the view's error.
    `token_vouched(request)`, run in the request's thread, is the cheap periodic check of the
    caller's token; when it cannot vouch, the view is run again and decides."""
    request.META["HTTP_ACCEPT"] = "application/json"
    # DRF negotiates from `request.headers`, which a middleware may already have read (and Django
    # caches): drop the cached copy so that the new Accept is the one seen.
    request.__dict__.pop("headers", None)
    _resume_from_last_event_id(request)
    first = await view(request, **kwargs)
    if first.status_code != 200:
        return first

    async def view_allows(after: int) -> bool:
        # The view's own checks again, asking only for what the stream has not sent (its database
        # connection goes back with its answer: a stream may not hold one while it waits).
        request.GET = request.GET.copy()
        request.GET["after"] = str(after)
        return (await view(request, **kwargs)).status_code == 200

    followed = log()

    def read(after: int, check: bool) -> tuple[bool, Page | None]:
        # One thread hop: the token's check when due, and the read (its connection given back in
        # the same hop: a stream holds none while it waits).
        return (not check or token_vouched(request)), followed.read(after)

    response = StreamingHttpResponse(
        _follow(followed, first=first.data, read=then_release(read), view_allows=view_allows),
        content_type="text/event-stream",
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


async def _follow(
    log: FollowedLog,
    *,
    first: dict,
    read: Callable[[int, bool], Awaitable[tuple[bool, Page | None]]],
    view_allows: Callable[[int], Awaitable[bool]],
) -> AsyncIterator[str]:
    started = time.monotonic()
    end = started + settings.EVENTS_SSE_MAX_SECONDS
    checked = written = started
    yield f"retry: 2000\n: {log.title}\n\n"
    if first["events"]:
        yield entries(first["events"])
        if any(log.ends(event) for event in first["events"]):
            return
    after = first["last_seq"]
    async with wakeups.Waiter(channel=log.channel) as waiter:
        # Subscribed, so read: what committed between the view's read and the subscription.
        pending: list[dict] | None = None  # what the last wake-up carried; None: read the log
        while (left := end - time.monotonic()) > 0 and not shutdown.is_requested():
            more = False
            if pending is None:
                check = time.monotonic() - checked >= settings.EVENTS_SSE_CHECK_SECONDS
                try:
                    vouched, page = await read(after, check)
                except Exception as exc:
                    if not server_busy(exc):
                        raise
                    # Overloaded (no connection came free): end the stream as at its time limit;
                    # the client reconnects after `retry` from its Last-Event-ID, missing nothing.
                    return
                if check:
                    if not vouched and not await view_allows(after):
                        return
                    checked = time.monotonic()
                if page is None:
                    return
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
            check_in = checked + settings.EVENTS_SSE_CHECK_SECONDS - now
            woke = await waiter.wait(max(0.0, min(left, settings.EVENTS_SSE_KEEPALIVE, check_in)))
            due = time.monotonic() - checked >= settings.EVENTS_SSE_CHECK_SECONDS
            carried = wakeups.pushed(waiter.take(), after=after) if woke else None
            if carried is not None and not due:
                pushed, after = carried
                pending = [entry for entry in pushed if log.visible(entry)]
            elif not woke and not due and not waiter.polling:
                pending = []  # quiet, and no check due: nothing to read
            # (A polling waiter's quiet says nothing: without Redis every poll interval reads.)
            # else: read (and check when due); the read covers whatever was pushed meanwhile.
            now = time.monotonic()
            if now - written >= settings.EVENTS_SSE_KEEPALIVE:
                yield ": keep-alive\n\n"
                written = now
