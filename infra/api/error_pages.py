"""Every answer under /api/ is JSON in the one error shape, whatever DEBUG says.

With DEBUG on, Django answers an unknown URL, an oversize body or a crash with its HTML debug pages
(handler404 and friends only apply with DEBUG off), and a client generated from the schema cannot read
them. This middleware replaces any non-JSON error answer under /api/ by the error body of its status,
and refuses a body larger than API_MAX_BODY_BYTES from its Content-Length before anything reads it,
like the JSON parser would (infra/api/parsers.py).
"""

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.http import JsonResponse
from django.utils.decorators import sync_and_async_middleware

from infra.api.errors import ApiError, ErrorCode

API_PREFIX = "/api/"

_CODE_OF_STATUS = {
    400: (ErrorCode.INVALID_REQUEST, "Bad request."),
    401: (ErrorCode.NOT_AUTHENTICATED, "Authentication credentials were not provided."),
    403: (ErrorCode.PERMISSION_DENIED, "You do not have permission to perform this action."),
    404: (ErrorCode.NOT_FOUND, "Not found."),
    405: (ErrorCode.METHOD_NOT_ALLOWED, "Method not allowed."),
    406: (ErrorCode.NOT_ACCEPTABLE, "Not acceptable."),
    415: (ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Unsupported media type."),
    429: (ErrorCode.THROTTLED, "Request was throttled."),
}


def _oversize(request) -> JsonResponse | None:
    if not request.path_info.startswith(API_PREFIX):
        return None
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    max_bytes = settings.API_MAX_BODY_BYTES
    if length <= max_bytes:
        return None
    error = ApiError(
        ErrorCode.INVALID_REQUEST,
        f"The request body is larger than {max_bytes} bytes.",
        extra={"max_bytes": max_bytes},
    )
    return JsonResponse(error.body(), status=error.status_code)


def _as_error_shape(request, response):
    if (
        response.status_code < 400
        or not request.path_info.startswith(API_PREFIX)
        or response.get("Content-Type", "").startswith("application/json")
    ):
        return response
    code, message = _CODE_OF_STATUS.get(
        response.status_code,
        (ErrorCode.SERVER_ERROR, "Server error.")
        if response.status_code >= 500
        else (ErrorCode.INVALID_REQUEST, "Bad request."),
    )
    error = ApiError(code, message, status_code=response.status_code)
    replaced = JsonResponse(error.body(), status=response.status_code)
    for header in ("Allow", "Retry-After", "WWW-Authenticate"):
        if header in response:
            replaced[header] = response[header]
    return replaced


@sync_and_async_middleware
def api_error_pages_middleware(get_response):
    if iscoroutinefunction(get_response):

        async def middleware(request):
            refused = _oversize(request)
            if refused is not None:
                return refused
            return _as_error_shape(request, await get_response(request))

    else:

        def middleware(request):
            refused = _oversize(request)
            if refused is not None:
                return refused
            return _as_error_shape(request, get_response(request))

    return middleware
