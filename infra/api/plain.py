"""The one error shape for plain Django views outside DRF (probes, /metrics)."""

from functools import wraps

from django.http import JsonResponse

from infra.api.errors import ApiError, ErrorCode


def error_response(error: ApiError, *, headers: dict | None = None) -> JsonResponse:
    response = JsonResponse(error.body(), status=error.status_code)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def get_only(view):
    """GET (and HEAD, which Django answers from GET) only; anything else is a 405 in the error shape."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if request.method not in ("GET", "HEAD"):
            error = ApiError(ErrorCode.METHOD_NOT_ALLOWED, f'Method "{request.method}" not allowed.')
            return error_response(error, headers={"Allow": "GET, HEAD"})
        return view(request, *args, **kwargs)

    return wrapper
