"""The event server's ASGI application (Starlette): its routes, one request's course, its lifespan.

One request: in one thread hop, the reader (events/access.py), the query's parameters and the
answer, as the web role's view gives them; then, if the answer is "nothing yet" and the client asked
to wait, a wait for the log's wake-up on the event loop (no thread, no database connection held);
then the answer read again, the reader checked again with it. With `Accept: text/event-stream` the
deal's log and the feed are streamed instead (events/streams.py).

`build(fallback=...)` is the development server's application (config/asgi.py): these routes, and
everything else handed to Django's ASGI application, on one port.
"""

import contextlib
from collections.abc import Callable

from django.conf import settings
from django.http import QueryDict
from rest_framework import exceptions
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.convertors import IntegerConvertor, register_url_convertor
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route

from events import caps, logs, shutdown, subscriptions
from events.access import Reader, reader_of
from events.context import RequestContext
from events.responses import error_response, json_response
from events.streams import follow
from events.threads import in_thread
from events.waiting import wait_for_change
from infra import health, wakeups
from infra.api.converters import MAX_ID, id_in_range
from infra.api.errors import ApiError, ErrorCode


class _IdConvertor(IntegerConvertor):
    """Any run of digits, as `int`; one longer than the largest id (infra/api/converters.py) is 0,
    which no row has, so the route answers its 404 with the headers of every answer, rather than
    reach int(), which refuses more than 4,300 digits (a 500)."""

    def convert(self, value: str) -> int:
        return int(value) if len(value) <= len(str(MAX_ID)) else 0


register_url_convertor("id", _IdConvertor())


def _authorization(request: Request) -> bytes:
    return request.headers.get("authorization", "").encode("latin-1")


def _query_params(request: Request, *, stream: bool) -> QueryDict:
    """The query string as Django parses it (what the web role's serializers are given). A stream
    that reconnects names the last entry it got in `Last-Event-ID`: it stands for `after`."""
    params = QueryDict(request.scope.get("query_string", b""), mutable=True)
    last_event_id = request.headers.get("last-event-id", "")
    if stream and last_event_id.isdigit() and len(last_event_id) <= 18:
        params["after"] = last_event_id
    return params


def _read(endpoint: logs.Endpoint, object_id, authorization: bytes, params: QueryDict):
    """Synchronous, in a worker thread: who reads, what he asked, and the answer."""
    reader = reader_of(authorization)
    query = endpoint.query(params)
    return reader, query, endpoint.answer(reader, object_id, query)


def _read_again(endpoint: logs.Endpoint, object_id, authorization: bytes, query: logs.Query) -> dict:
    # The reader is checked again: a token revoked or a ban imposed during the wait refuses the answer.
    return endpoint.answer(reader_of(authorization), object_id, query)


def _stream_read(followed, authorization: bytes):
    def read(after: int, check: bool):
        if check:
            try:
                reader_of(authorization)
            except (ApiError, exceptions.APIException):  # refused now: the stream ends
                return False, None
        return True, followed.read(after)

    return in_thread(read)


def _serve(endpoint: logs.Endpoint, id_name: str | None) -> Callable:
    read = in_thread(_read)
    read_again = in_thread(_read_again)
    changed = in_thread(lambda reader, object_id, query: endpoint.changed(reader, object_id, query))

    async def serve(request: Request) -> Response:
        object_id = request.path_params[id_name] if id_name else None
        # An id no row can have is no URL, as the web role's `<id:...>` converter has it: the
        # same 404 as any path that matches nothing.
        if object_id is not None and not id_in_range(object_id):
            return error_response(ApiError(ErrorCode.NOT_FOUND, "Not found."), request)
        stream = endpoint.followed is not None and "text/event-stream" in request.headers.get("accept", "")
        authorization = _authorization(request)
        # Marked before the read: if nothing is published between here and the wait, the read's
        # "nothing new" still holds, and the wait needs no second look at the database.
        channel = None if endpoint.per_reader else endpoint.channel(None, object_id)
        mark = subscriptions.watch(channel) if channel is not None else None
        try:
            params = _query_params(request, stream=stream)
            reader, query, body = await read(endpoint, object_id, authorization, params)
        except Exception as exc:  # noqa: BLE001 - the API's error answer, or raised again (a bug)
            return error_response(exc, request)
        if stream:
            return _stream(endpoint, object_id, reader, body, authorization)
        if query.wait > 0 and not endpoint.ready(body, query):
            channel = endpoint.channel(reader, object_id)
            # The wait asks the database too ("anything new?"): a database lost during the wait is
            # answered like one lost during a read (503 with Retry-After), never a 500.
            seconds = min(query.wait, float(settings.EVENTS_MAX_WAIT))
            try:
                with caps.long_poll_held(user_id=reader.user.pk, seconds=seconds):
                    await wait_for_change(
                        channel=channel,
                        changed=lambda: changed(reader, object_id, query),
                        seconds=seconds,
                        since=mark,
                    )
                body = await read_again(endpoint, object_id, authorization, query)
            except Exception as exc:  # noqa: BLE001
                return error_response(exc, request)
        return json_response(body)

    return serve


# The comment sent every EVENTS_SSE_KEEPALIVE seconds, so that no proxy on the way takes the stream
# for dead (a client reading nothing for longer may take it so too: bench/load_tables.py does).
_KEEPALIVE = ServerSentEvent(comment="keep-alive", sep="\n")


def _stream(
    endpoint: logs.Endpoint, object_id, reader: Reader, first: dict, authorization: bytes
) -> Response:
    """The stream's response. Its content is `follow`'s loop (events/streams.py); the response is
    sse-starlette's, which sends the keep-alive comments and ends the loop at once when the client
    goes away (its slot, presence mark and subscriptions released then, not at the next write). The
    process's stop (events/shutdown.py) ends the loop itself; `shutdown_grace_period` gives it that
    time before the library would cancel it, so the stream still ends with its closing chunk."""
    followed = endpoint.followed(reader, object_id)

    async def content():
        # Held while the stream is sent: his newest streams close his oldest (events/caps.py).
        with caps.stream_held(user_id=reader.user.pk) as slot:
            async for chunk in follow(
                followed,
                first=first,
                read=_stream_read(followed, authorization),
                access_channel=wakeups.access_channel_name(reader.user.pk),
                expires_at=reader.expires_at,
                slot=slot,
            ):
                yield chunk

    # `X-Accel-Buffering: no` (set by EventSourceResponse): nginx passes each entry on at once.
    return EventSourceResponse(
        content(),
        headers={"Cache-Control": "no-cache", "Vary": "Accept"},
        ping=settings.EVENTS_SSE_KEEPALIVE,
        ping_message_factory=lambda: _KEEPALIVE,
        sep="\n",
        shutdown_grace_period=2.0,
    )


def _route(path: str, endpoint: logs.Endpoint, id_name: str | None) -> Route:
    return Route(
        path,
        _serve(endpoint, id_name),
        methods=["GET"],
        middleware=[Middleware(RequestContext, route=endpoint.route)],
    )


ROUTES = [
    _route("/api/v1/games/{game_id:id}/events", logs.GAME_LOG, "game_id"),
    _route("/api/v1/tables/{table_id:id}/events", logs.TABLE_LOG, "table_id"),
    _route("/api/v1/me/events", logs.FEED, None),
    _route("/api/v1/matchmaking/tickets/{ticket_id:id}", logs.TICKET, "ticket_id"),
]


async def _healthz(request: Request) -> Response:
    return json_response({"status": "ok"})


_readiness = in_thread(health.readiness)


async def _readyz(request: Request) -> Response:
    # The same checks as the web role's probe (infra/health.py): this role needs the same database
    # and Redis to answer anything.
    ready = await _readiness()
    if isinstance(ready, ApiError):
        return error_response(ready, request)
    return json_response(ready)


PROBES = [Route("/healthz", _healthz, methods=["GET"]), Route("/readyz", _readyz, methods=["GET"])]


def _not_found(request: Request, exc: Exception) -> Response:
    return error_response(ApiError(ErrorCode.NOT_FOUND, "Not found."), request)


def _server_error(request: Request, exc: Exception) -> Response:
    # The traceback goes to the log (Starlette raises the exception again once this is sent).
    return json_response(ApiError(ErrorCode.SERVER_ERROR, "Server error.").body(), status=500)


@contextlib.asynccontextmanager
async def _lifespan(app):
    # The server has installed its signal handlers by now: ours go in front of them, so that a
    # SIGTERM releases every waiting request at once (events/shutdown.py).
    shutdown.install_signal_handlers()
    yield
    shutdown.request()


def build(*, fallback=None) -> Starlette:
    """The event server; with `fallback` (an ASGI application), everything else goes there."""
    routes = list(ROUTES)
    if fallback is not None:
        routes.append(Mount("/", app=fallback))  # the probes too: Django's, on one port
    else:
        routes += PROBES
    return Starlette(
        routes=routes,
        exception_handlers={404: _not_found, 500: _server_error},
        lifespan=_lifespan,
    )
