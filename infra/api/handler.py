"""One error body everywhere: `{"code", "message", "extra"}` (docs/client-guide.md §3).

DRF's own exceptions (401, 403, 404, 405, 415, 429, validation) are translated here too, and
Django's 404/500 handlers for URLs outside DRF answer in the same shape.
"""

import sys

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, HttpResponse
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import set_rollback

from infra.api.busy import server_busy
from infra.api.errors import ApiError, ErrorCode
from infra.api.messages import localized_message
from infra.api.renderers import render_json

_DRF_CODES: list[tuple[type[exceptions.APIException], str]] = [
    (exceptions.NotAuthenticated, ErrorCode.NOT_AUTHENTICATED),
    (exceptions.AuthenticationFailed, ErrorCode.NOT_AUTHENTICATED),
    (exceptions.PermissionDenied, ErrorCode.PERMISSION_DENIED),
    (exceptions.NotFound, ErrorCode.NOT_FOUND),
    (exceptions.MethodNotAllowed, ErrorCode.METHOD_NOT_ALLOWED),
    (exceptions.NotAcceptable, ErrorCode.NOT_ACCEPTABLE),
    (exceptions.UnsupportedMediaType, ErrorCode.UNSUPPORTED_MEDIA_TYPE),
    (exceptions.Throttled, ErrorCode.THROTTLED),
    (exceptions.ParseError, ErrorCode.INVALID_REQUEST),
    (exceptions.ValidationError, ErrorCode.INVALID_REQUEST),
]


# How long a client is asked to wait when every database (or Redis) connection of the process was busy,
# or the database could not be reached.
BUSY_RETRY_AFTER_SECONDS = 1


def _translate(exc: Exception) -> ApiError | None:
    if isinstance(exc, ApiError):
        return exc
    if server_busy(exc):
        return ApiError(
            ErrorCode.SERVICE_UNAVAILABLE,
            "The server cannot answer now; retry shortly.",
            extra={"retry_after": BUSY_RETRY_AFTER_SECONDS},
        )
    if isinstance(exc, Http404):
        return ApiError(ErrorCode.NOT_FOUND, "Not found.")
    if isinstance(exc, DjangoPermissionDenied):
        return ApiError(ErrorCode.PERMISSION_DENIED, "You do not have permission to perform this action.")
    if isinstance(exc, exceptions.APIException):
        fallback = ErrorCode.INVALID_REQUEST if exc.status_code == 400 else ErrorCode.SERVER_ERROR
        code = next((code for exc_type, code in _DRF_CODES if isinstance(exc, exc_type)), fallback)
        extra: dict = {}
        if isinstance(exc, exceptions.ValidationError):
            extra = {
                "fields": exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
            }
            message = "The request is malformed."
        else:
            message = str(exc.detail)
            # A refused body names the limit it exceeded (infra/api/parsers.py).
            extra = dict(getattr(exc, "extra", None) or {})
        if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
            extra = {"retry_after": int(exc.wait) + 1}
        return ApiError(code, message, extra=extra, status_code=exc.status_code)
    return None


def error_parts(exc: Exception) -> tuple[int, dict, dict[str, str]] | None:
    """The status, error body and headers that answer `exc`, or None for an exception that is a bug
    (a 500). Shared by DRF's handler below and the event server (events/responses.py), so that an
    error reads the same whichever role answers it."""
    error = _translate(exc)
    if error is None:
        return None
    headers = {}
    if isinstance(exc, exceptions.APIException):
        if getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = exc.auth_header
        if getattr(exc, "wait", None) is not None:
            headers["Retry-After"] = str(int(exc.wait) + 1)
    if error.code == ErrorCode.SERVICE_UNAVAILABLE and "retry_after" in error.extra:
        headers["Retry-After"] = str(error.extra["retry_after"])
    if error.status_code == 401 and "WWW-Authenticate" not in headers:
        headers["WWW-Authenticate"] = 'Bearer realm="api"'
    body = error.body()
    body["message"] = localized_message(error.code, error.message)
    return error.status_code, body, headers


def api_exception_handler(exc: Exception, context: dict) -> Response | None:
    parts = error_parts(exc)
    if parts is None:
        return None
    # Whatever a view wrote before failing is undone, like DRF's own handler does.
    set_rollback()
    status, body, headers = parts
    return Response(body, status=status, headers=headers)


def _json(body: dict, *, status: int, headers: dict | None = None) -> HttpResponse:
    # The bytes the API's renderer writes (and the event server's): a 404 from a URL that matches
    # nothing reads the same whichever role answers it (tests/events/test_same_answers.py).
    return HttpResponse(render_json(body), status=status, headers=headers, content_type="application/json")


def error_response(error: ApiError) -> HttpResponse:
    """The answer to `error` outside a DRF view (a middleware's refusal), as a view's would read."""
    status, body, headers = error_parts(error)
    return _json(body, status=status, headers=headers)


def json_400(request, exception=None) -> HttpResponse:
    # Django's own 400s (a disallowed Host header, a broken multipart body) outside DRF.
    return _json(ApiError(ErrorCode.INVALID_REQUEST, "Bad request.").body(), status=400)


def json_403(request, exception=None) -> HttpResponse:
    return _json(
        ApiError(ErrorCode.PERMISSION_DENIED, "You do not have permission to perform this action.").body(),
        status=403,
    )


def json_404(request, exception=None) -> HttpResponse:
    return _json(ApiError(ErrorCode.NOT_FOUND, "Not found.").body(), status=404)


def json_500(request) -> HttpResponse:
    # Django calls this handler while it handles the exception (django.core.handlers.exception), so
    # the exception is still the one being handled: a database that went away in a middleware (the
    # session's, the authentication's) is a 503 to retry, as it is in a view, not a bug.
    exc = sys.exc_info()[1]
    parts = error_parts(exc) if isinstance(exc, Exception) else None
    if parts is not None and parts[0] == 503:
        status, body, headers = parts
        return _json(body, status=status, headers=headers)
    return _json(ApiError(ErrorCode.SERVER_ERROR, "Server error.").body(), status=500)
