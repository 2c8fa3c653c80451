"""Request counts and latency by route pattern and status (infra/metrics.py)."""

import time

from asgiref.sync import iscoroutinefunction
from django.utils.decorators import sync_and_async_middleware

from infra import metrics
from infra.request_context import route_of

# Anything else (a made-up method) is counted as `other`: a label must stay bounded.
_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}


def _record(request, response, started: float) -> None:
    metrics.record_http_request(
        route=route_of(request),
        method=request.method if request.method in _METHODS else "other",
        status=response.status_code,
        seconds=time.perf_counter() - started,
    )


@sync_and_async_middleware
def request_metrics_middleware(get_response):
    # Async-capable, so the events long-poll still waits without holding a thread.
    if iscoroutinefunction(get_response):

        async def middleware(request):
            started = time.perf_counter()
            response = await get_response(request)
            _record(request, response, started)
            return response

    else:

        def middleware(request):
            started = time.perf_counter()
            response = get_response(request)
            _record(request, response, started)
            return response

    return middleware
