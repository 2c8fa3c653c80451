"""Probes and /metrics are answered before Django checks the Host header.

Orchestrators and Prometheus call each process by its own address (`Host: 10.1.2.3:8000`), which is
not in ALLOWED_HOSTS, so CommonMiddleware would refuse them with a 400. These views build no URL from
the Host header, so the check protects nothing there. The paths stay declared in config/urls.py; this
middleware only resolves them earlier. It sits after the request-id and metrics middleware, so the
operator's requests are still logged and counted.
"""

from asgiref.sync import iscoroutinefunction, sync_to_async
from django.urls import resolve
from django.utils.decorators import sync_and_async_middleware

OPERATOR_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})


def _match(request):
    if request.path_info not in OPERATOR_PATHS:
        return None
    request.resolver_match = resolve(request.path_info)
    return request.resolver_match


@sync_and_async_middleware
def operator_paths_middleware(get_response):
    if iscoroutinefunction(get_response):

        async def middleware(request):
            match = _match(request)
            if match is None:
                return await get_response(request)
            # The views block (readiness checks, the database gauges): never in the event loop. Like
            # any synchronous view under ASGI, in the request's own thread, where Django closes the
            # database connection at the end of the request.
            view = sync_to_async(match.func)
            return await view(request, *match.args, **match.kwargs)

    else:

        def middleware(request):
            match = _match(request)
            if match is None:
                return get_response(request)
            return match.func(request, *match.args, **match.kwargs)

    return middleware
