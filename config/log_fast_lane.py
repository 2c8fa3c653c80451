"""The two logs every client follows, read without Django's handler and DRF in the plain case.

`GET /api/v1/games/{id}/events` (a deal's log) and `GET /api/v1/me/events` (the user's feed): a
table's five clients read both after every move, so these reads are most of a server's requests,
and around their one small query Django's handler, middleware and DRF cost several times the query
itself (docs/scaling.md "The logs' fast lane"). This lane answers the plain case: a GET with no
parameters but `after` and `wait` in their plain forms (and, for the feed, no `text/event-stream`
in Accept), a bearer token the token cache holds and that may be used as is (accounts.selectors.
token_get_cached: unexpired, active user, no ban, no write due) with the `read` scope, a log the
viewer may read. It calls the DRF views' own selectors (games.selectors.game_events, accounts.feed.
feed_read: the same statements, the same redaction), waits the same way (config/api/long_poll.py),
and gives the same body and headers, access log line and metrics.

Everything else goes on to Django untouched (`answer` returns the scope): no or another kind of token, a
token not cached yet, a ban, a missing scope, another parameter or a value in another form, a
private table the viewer is not seated at, no such game, the feed as a stream. Django then answers
it, errors included, exactly as before. EVENTS_FAST_LANE=0 sends everything to Django.
"""

import io
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl

import orjson
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import HttpResponse
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.middleware.security import SecurityMiddleware

from accounts import feed
from accounts import selectors as account_selectors
from accounts.scopes import Scope, scopes_granted
from config import metrics, request_context, wakeups
from config.api.errors import ApiError
from config.api.long_poll import connections_release, wait_for_change
from games import selectors

_AFTER = re.compile(r"0|[1-9][0-9]{0,17}")
_WAIT = re.compile(r"[0-9]{1,6}(\.[0-9]{1,6})?")
_BEARER = re.compile(rb"[Bb][Ee][Aa][Rr][Ee][Rr] +([!-~]{1,512})")

# Django's own response hooks, for the same security headers as every other answer.
_security = SecurityMiddleware(lambda request: None)
_xframe = XFrameOptionsMiddleware(lambda request: None)


def _query(raw: bytes) -> tuple[int, float] | None:
    try:
        pairs = parse_qsl(raw.decode("ascii"), keep_blank_values=True)
    except (UnicodeDecodeError, ValueError):
        return None
    given: dict[str, str] = {}
    for name, value in pairs:
        if name not in ("after", "wait") or name in given:
            return None
        given[name] = value
    after, wait = given.get("after", "0"), given.get("wait", "0")
    if not _AFTER.fullmatch(after) or not _WAIT.fullmatch(wait):
        return None
    return int(after), min(float(wait), float(settings.EVENTS_MAX_WAIT))


def _bearer_key(headers: list[tuple[bytes, bytes]]) -> str | None:
    values = [value for name, value in headers if name == b"authorization"]
    if len(values) != 1:
        return None
    match = _BEARER.fullmatch(values[0])
    return match.group(1).decode("ascii") if match else None


@dataclass(frozen=True)
class _Log:
    """One log the lane serves: how to find it in a path, read it, wait for it, and name it."""

    path: re.Pattern
    route: str  # as Django names the route (access log and metrics label both paths alike)
    read: Callable[..., dict]  # (user, object id, after) -> the DRF view's answer; ApiError: Django's
    changed: Callable[..., bool]  # (user id, object id, after) -> anything after `after`?
    channel: Callable[..., str]  # (user id, object id) -> its wake-up channel
    streams: bool = False  # also served as Server-Sent Events (those are Django's)
    per_user: bool = False  # its channel is the viewer's (known once his token is read)


_LOGS = (
    _Log(
        path=re.compile(r"/api/v1/games/([1-9][0-9]{0,17})/events"),
        route="api/v1/games/<int:game_id>/events",
        read=lambda user, game_id, after: selectors.game_events(game_id=game_id, user=user, after=after),
        changed=lambda user_id, game_id, after: selectors.game_events_changed(game_id=game_id, after=after),
        channel=lambda user_id, game_id: wakeups.channel_name(game_id),
        streams=True,
    ),
    _Log(
        path=re.compile(r"/api/v1/me/events()"),
        route="api/v1/me/events",
        read=lambda user, _, after: feed.feed_read(user_id=user.pk, after=after),
        changed=lambda user_id, _, after: feed.feed_changed(user_id=user_id, after=after),
        channel=lambda user_id, _: wakeups.user_channel_name(user_id),
        streams=True,
        per_user=True,
    ),
)
ROUTES = tuple(log.route for log in _LOGS)

# The user each bearer key belonged to when last read (a token's user never changes), so that a
# feed's wake-up channel can be marked before the read that looks the token up. Never trusted for
# access: the read checks the token every time.
_key_users: dict[str, int] = {}
_KEY_USERS_MAX = 100_000


def _read(*, log: _Log, object_id: int | None, key: str, after: int) -> tuple[int, dict] | None:
    """(viewer's user id, the answer) or None for "leave it to Django". In the request's thread."""
    for connection in connections.all(initialized_only=True):
        connection.close_if_unusable_or_obsolete()  # as Django does at the start of a request
    token = account_selectors.token_get_cached(key=key)
    if token is None or Scope.READ not in scopes_granted(user=token.user, auth=token):
        return None
    try:
        return token.user.pk, log.read(token.user, object_id, after)
    except ApiError:
        return None  # no such game, a private table: Django gives the error
    finally:
        connections_release()


def _changed(*, log: _Log, user_id: int, object_id: int | None, after: int) -> bool:
    try:
        return log.changed(user_id, object_id, after)
    finally:
        connections_release()


_read_async = sync_to_async(_read)
_changed_async = sync_to_async(_changed)


def _match(path: str) -> tuple[_Log, int | None] | None:
    for log in _LOGS:
        if found := log.path.fullmatch(path):
            return log, int(found.group(1)) if found.group(1) else None
    return None


async def answer(scope, send) -> dict | None:
    """Answer the request if it is the plain case (None); else the scope to hand to Django: the same
    one, or, when the lane gave up after waiting, the same request without its wait."""
    if not settings.EVENTS_FAST_LANE or scope["method"] != "GET" or scope.get("root_path"):
        return scope
    found = _match(scope["path"])
    if found is None:
        return scope
    log, object_id = found
    query = _query(scope.get("query_string", b""))
    key = _bearer_key(scope["headers"])
    if query is None or key is None:
        return scope
    request = ASGIRequest(scope, io.BytesIO())
    if log.streams and "text/event-stream" in request.META.get("HTTP_ACCEPT", ""):
        return scope
    try:
        request.get_host()  # ALLOWED_HOSTS, as CommonMiddleware checks it
    except DisallowedHost:
        return scope
    if _security.process_request(request) is not None:
        return scope  # an HTTPS redirect: Django's to give
    started = time.perf_counter()
    after, wait = query
    hint = _key_users.get(key) if log.per_user else None
    channel_before = log.channel(hint, object_id) if hint is not None or not log.per_user else None
    # Marked before the read: if nothing is published between here and the wait, the read's
    # "nothing new" still holds and the wait needs no second query (config/wakeups.py `watch`).
    since = wakeups.watch(channel_before) if wait > 0 and channel_before is not None else None
    read = await _read_async(log=log, object_id=object_id, key=key, after=after)
    if read is None:
        return scope
    user_id, body = read
    if log.per_user and hint != user_id:
        if len(_key_users) >= _KEY_USERS_MAX:
            _key_users.clear()
        _key_users[key] = user_id
    request_id = request_context.request_id_from_header(
        request.headers.get(request_context.REQUEST_ID_HEADER)
    )
    ids = {"user_id": user_id} if object_id is None else {"game_id": object_id, "user_id": user_id}
    token = request_context.bind_request(request_id=request_id, ids=ids)
    try:
        if wait > 0 and body["last_seq"] <= after:
            channel = log.channel(user_id, object_id)
            await wait_for_change(
                channel=channel,
                changed=lambda: _changed_async(log=log, user_id=user_id, object_id=object_id, after=after),
                seconds=wait,
                since=since if channel == channel_before else None,
            )
            read = await _read_async(log=log, object_id=object_id, key=key, after=after)
            if read is None:
                # The token left the cache meanwhile (its minute ran out, or it was revoked, or
                # the user banned): Django answers, at once, not after a second wait.
                return {**scope, "query_string": f"after={after}".encode()}
            body = read[1]
        await _send(request=request, body=body, request_id=request_id, send=send)
        request_context.log_access(
            method="GET", path=scope["path"], route=log.route, status=200, started=started
        )
        metrics.record_http_request(
            route=log.route, method="GET", status=200, seconds=time.perf_counter() - started
        )
    finally:
        request_context.unbind(token)
    return None


async def _send(*, request, body: dict, request_id: str, send) -> None:
    response = HttpResponse(orjson.dumps(body), content_type="application/json")
    response["Allow"] = "GET, HEAD, OPTIONS"  # as DRF's answer has it
    response = _xframe.process_response(request, _security.process_response(request, response))
    response[request_context.REQUEST_ID_HEADER] = request_id
    response["Content-Length"] = str(len(response.content))
    headers = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in response.items()]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": response.content})
