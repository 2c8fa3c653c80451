"""Synchronous API views served the way a threaded WSGI server serves them: in one thread hop.

Under ASGI, Django serves a synchronous view through its async request path: a task for the view
and another listening for a disconnect, the `request_started` and `request_finished` signals each
sent through a thread hop, the view itself in another, and the response closed in a third. On a
move or a view (`GET games/{id}`) that machinery cost about as much CPU as the view's own work
(docs/scaling.md). Here an API request whose view is synchronous (every DRF view: moves, views,
tables, tickets, accounts) is read on the event loop, then handled entirely in the request's
thread by Django's synchronous handler, the same middleware chain Django's WSGI handler and the
test client run, and its response sent from the loop. Async views (the long-polls and event
streams) and everything outside `/api/` go to Django's ASGI handler as before.

What differs from Django's ASGI path: a client that disconnects does not cancel a running view (as
under WSGI, the view finishes and its answer is dropped), and `request_finished` is sent once the
response is built rather than once it is sent. `SYNC_LANE=0` turns the lane off.
"""

from functools import lru_cache

from asgiref.sync import iscoroutinefunction, sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.base import BaseHandler
from django.urls import Resolver404, get_resolver, set_script_prefix

API_PREFIX = "/api/"


class _SyncHandler(BaseHandler):
    """Django's handler with its middleware loaded for synchronous calls (as WSGIHandler does)."""

    def __init__(self):
        super().__init__()
        self.load_middleware(is_async=False)


@lru_cache(maxsize=1)
def _handler() -> _SyncHandler:
    return _SyncHandler()


@lru_cache(maxsize=4096)
def _view_is_sync(path: str) -> bool:
    """The URL resolves to a synchronous view. Unknown paths go to Django (its 404 page).
    Cached per path: a client asks the same few paths (its game's, its table's) again and again."""
    try:
        match = get_resolver().resolve(path)
    except Resolver404:
        return False
    return not iscoroutinefunction(match.func)


def wants(scope) -> bool:
    path = scope["path"]
    return (
        settings.SYNC_LANE
        and scope["type"] == "http"
        and path.startswith(API_PREFIX)
        and not scope.get("root_path")
        and _view_is_sync(path)
    )


def _respond(asgi: ASGIHandler, scope, body_file):
    """In the request's thread: what Django's WSGI handler does, returning the request and the
    finished response."""
    set_script_prefix(get_script_prefix(scope))
    signals.request_started.send(sender=ASGIHandler, scope=scope)
    request, response = asgi.create_request(scope, body_file)
    if request is not None:
        response = _handler().get_response(request)
    if not response.streaming:
        response.close()  # request_finished: the connection goes back, the request's context is cleared
    return request, response


def _unlink(request, response) -> None:
    """Break the reference cycles a served request leaves behind. Django and DRF link the request,
    the view, DRF's request and the response both ways (the view's `request` and DRF's
    `parser_context["view"]`, the response's `renderer_context`, the messages storage's `request`),
    so every request left about 130 objects (its scope and headers, session and messages stores,
    serializers) that only the cyclic collector could free: under bench/load_tables.py its young
    collections then paused a worker for 160 ms every few seconds, the move latency's p99
    (docs/scaling.md, tenth session). Emptied once the response is sent, they are freed at
    once by reference counting."""
    context = getattr(response, "renderer_context", None) or {}
    for linked in (context.get("view"), context.get("request"), request, response):
        if linked is not None:
            vars(linked).clear()


_respond_async = sync_to_async(_respond)  # thread-sensitive: the request's own thread


async def serve(asgi: ASGIHandler, scope, receive, send) -> None:
    try:
        body_file = await asgi.read_body(receive)
    except RequestAborted:
        return
    try:
        request, response = await _respond_async(asgi, scope, body_file)
    finally:
        body_file.close()
    await asgi.send_response(response, send)
    if response.streaming:  # (no API view answers so today) closed once sent, as Django does
        await sync_to_async(response.close)()
    _unlink(request, response)
