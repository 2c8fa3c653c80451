"""Who a log line is about: the request id (or task id) and, where known, the game, table and user.

A context variable holds the current request (web) or task (worker). Log records read it when they are
written (infra/logs.py), so a line logged deep inside a service carries the ids without any caller
passing them. The ids are read lazily because DRF authenticates inside the view, after the middleware.
"""

import contextvars
import logging
import re
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.core.signals import request_finished
from django.dispatch import receiver
from django.utils.decorators import sync_and_async_middleware
from django.utils.functional import SimpleLazyObject, empty

REQUEST_ID_HEADER = "X-Request-ID"
# A caller's id is kept only if it is short and made of characters that cannot forge a log field or
# a header; anything else is replaced by a fresh id.
_SAFE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
# URL parameters that name the objects an operator looks a request up by.
_URL_IDS = ("game_id", "table_id", "user_id")

access_logger = logging.getLogger("baohuang.request")


@dataclass
class Context:
    request_id: str | None = None
    task_id: str | None = None
    task_name: str | None = None
    request: Any = None
    ids: dict[str, int] = field(default_factory=dict)


_current: contextvars.ContextVar[Context | None] = contextvars.ContextVar(
    "baohuang_log_context", default=None
)


def request_id_from_header(value: str | None) -> str:
    if value and _SAFE_REQUEST_ID.fullmatch(value):
        return value
    return secrets.token_hex(16)


def _authenticated_user_id(request: Any) -> int | None:
    # Only a user already resolved counts: evaluating Django's lazy session user here would query the
    # database from inside a log call. DRF replaces it with the token's user once it authenticates.
    user = request.__dict__.get("user")
    if isinstance(user, SimpleLazyObject):
        user = user._wrapped
        if user is empty:
            return None
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return user.pk


def current_fields() -> dict[str, Any]:
    """The ids of the current request or task (None where unknown)."""
    context = _current.get()
    fields: dict[str, Any] = {
        "request_id": None,
        "task_id": None,
        "task_name": None,
        "game_id": None,
        "table_id": None,
        "user_id": None,
    }
    if context is None:
        return fields
    fields["request_id"] = context.request_id
    fields["task_id"] = context.task_id
    fields["task_name"] = context.task_name
    ids = dict(context.ids)
    request = context.request
    if request is not None:
        match = getattr(request, "resolver_match", None)
        if match is not None:
            for name in _URL_IDS:
                if name in match.kwargs and name not in ids:
                    ids[name] = match.kwargs[name]
        user_id = _authenticated_user_id(request)
        if user_id is not None and "user_id" not in ids:
            ids["user_id"] = user_id
    for name in _URL_IDS:
        if name in ids:
            fields[name] = ids[name]
    return fields


def bind_task(*, task_id: str | None, task_name: str | None, kwargs: dict | None) -> contextvars.Token:
    """Called when a Celery task starts (infra/celery_signals.py); tasks pass ids as keyword arguments."""
    ids = {
        name: value
        for name, value in (kwargs or {}).items()
        if name in _URL_IDS and isinstance(value, int) and not isinstance(value, bool)
    }
    return _current.set(Context(task_id=task_id, task_name=task_name, ids=ids))


def unbind(token: contextvars.Token) -> None:
    _current.reset(token)


def clear() -> None:
    _current.set(None)


UNMATCHED_ROUTE = "<unmatched>"


def route_of(request: Any) -> str:
    """The URL pattern a request matched (`api/v1/games/<id:game_id>`), the same for every game."""
    match = getattr(request, "resolver_match", None)
    return match.route if match is not None and match.route else UNMATCHED_ROUTE


def _log_access(request: Any, response: Any, started: float) -> None:
    log_access(
        method=request.method,
        path=request.path,
        route=route_of(request),
        status=response.status_code,
        started=started,
    )


def log_access(*, method: str, path: str, route: str, status: int, started: float) -> None:
    """One request's access line: Django's (the middleware below), the event server's (events/context.py)."""
    if not access_logger.isEnabledFor(logging.INFO):
        return
    # The path without its query string: the route's parameters are enough to find the request.
    access_logger.info(
        "%s %s %s",
        method,
        path,
        status,
        extra={
            "method": method,
            "path": path,
            "route": route,
            "status": status,
            "duration_ms": round((time.perf_counter() - started) * 1000, 1),
        },
    )


def bind_request(*, request_id: str, ids: dict[str, int]) -> contextvars.Token:
    """The log context of a request served outside Django: the event server's (events/context.py)."""
    return _current.set(Context(request_id=request_id, ids=ids))


@receiver(request_finished)
def _forget_request(**kwargs) -> None:
    # Sent once the response is closed, after Django's own "Not Found: ..." warnings, which so still
    # carry the request's id. (Under ASGI each request has a context of its own anyway.)
    clear()


@sync_and_async_middleware
def request_context_middleware(get_response):
    """Give every request an id (the caller's `X-Request-ID` if safe), log one access line, and send
    the id back. Async-capable, so the events long-poll still waits without holding a thread."""

    def begin(request) -> float:
        request.request_id = request_id_from_header(request.headers.get(REQUEST_ID_HEADER))
        _current.set(Context(request_id=request.request_id, request=request))
        return time.perf_counter()

    def finish(request, response, started: float):
        response[REQUEST_ID_HEADER] = request.request_id
        _log_access(request, response, started)
        return response

    if iscoroutinefunction(get_response):

        async def middleware(request):
            started = begin(request)
            return finish(request, await get_response(request), started)

    else:

        def middleware(request):
            started = begin(request)
            return finish(request, get_response(request), started)

    return middleware
