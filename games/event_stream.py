"""`GET games/{id}/events` as Server-Sent Events (`Accept: text/event-stream`).

A client that follows a deal by long-polling sends a new request after every event: its answer, a
new request's parsing, token lookup and read, and a new wait, about ten requests per move across a
table (docs/scaling.md). Over one stream the server only reads and writes what is new. Each entry
is `id: <seq>` / `event: <type>` / `data: <the event as in the JSON log>`; a reconnecting client
sends `Last-Event-ID` (as EventSource does) or `after`, and gets nothing twice.

What the stream sends is what the long-poll would: the same read (games.selectors.game_events, with
its redaction and its access check on every read), after the same DRF checks (token, scope, ban,
throttle) at the start; every EVENTS_SSE_KEEPALIVE seconds the token is checked again (in the token
cache when it holds it, else by the DRF checks), so a revoked token or a ban ends the stream within
that time. It ends by itself after the deal's last event (`deal_over`,
`void` or `aborted`), after EVENTS_SSE_MAX_SECONDS, when the viewer may no longer read the log, or
when the process is told to stop.
"""

import re
import time

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import StreamingHttpResponse

from accounts import selectors as account_selectors
from accounts.scopes import Scope, scopes_granted
from config import shutdown, wakeups
from config.api import sse
from config.api.errors import ApiError
from config.api.long_poll import connections_release
from games import selectors

ENDING_EVENTS = frozenset({"deal_over", "void", "aborted"})


def resume_from_last_event_id(request) -> None:
    """A reconnecting EventSource names the last entry it got in `Last-Event-ID`: it stands for
    `after` (and is validated as `after` is). A value that is not a seq is ignored."""
    value = request.META.get("HTTP_LAST_EVENT_ID", "")
    if value.isdigit() and len(value) <= 18:
        request.GET = request.GET.copy()
        request.GET["after"] = value


def _read(*, game_id: int, user, after: int) -> dict | None:
    try:
        return selectors.game_events(game_id=game_id, user=user, after=after)
    except ApiError:
        return None  # the viewer may no longer read this log (he left a private table)
    finally:
        connections_release()  # a stream must not hold a database connection while it waits


_read_async = sync_to_async(_read)


_BEARER = re.compile(r"[Bb][Ee][Aa][Rr][Ee][Rr] +([!-~]{1,512})")


def _token_still_good(request) -> bool:
    """The cheap form of the periodic check: the stream's bearer token is in the token cache and
    may be used as is (accounts.selectors.token_get_cached: unexpired, its user active and under no
    ban, no write due), for the same user, with the read scope. Revoking a token, a ban or a user
    change forgets the cached token, so those fall through to the full DRF checks. No query."""
    match = _BEARER.fullmatch(request.META.get("HTTP_AUTHORIZATION", ""))
    if match is None:
        return False
    token = account_selectors.token_get_cached(key=match.group(1))
    return (
        token is not None
        and token.user.pk == request.user.pk
        and Scope.READ in scopes_granted(user=token.user, auth=token)
    )


_token_still_good_async = sync_to_async(_token_still_good)


async def _events(request, *, game_id: int, first: dict, allowed):
    """The stream's body: `first`, the DRF view's answer, then what comes. `allowed(after)` re-runs
    the view's checks (False: end the stream)."""
    started = time.monotonic()
    end = started + settings.EVENTS_SSE_MAX_SECONDS
    checked = written = started
    yield f"retry: 2000\n: events of game {game_id}\n\n"
    if first["events"]:
        yield sse.entries(first["events"])
        if any(event["type"] in ENDING_EVENTS for event in first["events"]):
            return
    after = first["last_seq"]
    # Subscribed, then read again: what committed between the view's read and the subscription.
    async with wakeups.Waiter(channel=wakeups.channel_name(game_id)) as waiter:
        while (left := end - time.monotonic()) > 0 and not shutdown.is_requested():
            page = await _read_async(game_id=game_id, user=request.user, after=after)
            if page is None:
                return
            after = page["last_seq"]
            if page["events"]:
                yield sse.entries(page["events"])
                written = time.monotonic()
                if any(event["type"] in ENDING_EVENTS for event in page["events"]):
                    return
            # The waiter was subscribed before the first read: whatever committed since that read
            # has woken it already, so one read per wake-up is enough.
            await waiter.wait(min(left, settings.EVENTS_SSE_KEEPALIVE))
            now = time.monotonic()
            if now - checked >= settings.EVENTS_SSE_KEEPALIVE:
                # A token the cache vouches for needs no more; else the view's own checks decide.
                if not await _token_still_good_async(request) and not await allowed(after):
                    return
                checked = now
            if now - written >= settings.EVENTS_SSE_KEEPALIVE:
                yield ": keep-alive\n\n"
                written = now


def stream_response(request, *, game_id: int, first: dict, allowed) -> StreamingHttpResponse:
    response = StreamingHttpResponse(
        _events(request, game_id=game_id, first=first, allowed=allowed),
        content_type="text/event-stream",
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response
