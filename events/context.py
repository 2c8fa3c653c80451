"""Every answer of the event server: its request id, access line, metrics and security headers.

The same as the web role's middleware gives every answer (infra/request_context.py,
infra/metrics_middleware.py, Django's security middleware): the caller's `X-Request-ID` if it is
safe (else a new one) in the log context and sent back, one access line and one sample of the
request metrics under the route's name, the security headers of events/responses.py. A stream's
line and sample are written when it ends. Plain ASGI middleware, so that it sees a stream's headers
as they are sent.

It also answers in the reader's language, as LocaleMiddleware does for the web role: an error raised
while reading (DRF words its detail when the exception is made) is in the language the request asks
for, never in one a previous request left active in the thread or context.
"""

import time

from django.conf import settings
from django.utils import translation
from starlette.datastructures import Headers
from starlette.requests import HTTPConnection

from events.responses import security_headers
from infra import metrics, request_context
from infra.api.messages import language_of

_IDS = ("game_id", "table_id")


def _is_secure(scope, headers: Headers) -> bool:
    """As Django's `request.is_secure()`: the scheme, or the proxy's header when SECURE_PROXY_SSL_HEADER
    names one."""
    proxy = settings.SECURE_PROXY_SSL_HEADER
    if proxy:
        name, value = proxy
        return headers.get(name.removeprefix("HTTP_").replace("_", "-"), "") == value
    return scope.get("scheme") == "https"


class RequestContext:
    def __init__(self, app, *, route: str) -> None:
        self.app = app
        self.route = route

    async def __call__(self, scope, receive, send) -> None:
        started = time.perf_counter()
        headers = Headers(scope=scope)
        request_id = request_context.request_id_from_header(headers.get(request_context.REQUEST_ID_HEADER))
        ids = {name: value for name, value in scope.get("path_params", {}).items() if name in _IDS}
        token = request_context.bind_request(request_id=request_id, ids=ids)
        added = [
            (name.lower().encode("latin-1"), value.encode("latin-1"))
            for name, value in security_headers(secure=_is_secure(scope, headers)).items()
        ]
        added.append((request_context.REQUEST_ID_HEADER.lower().encode(), request_id.encode()))
        status = 500

        async def send_with_headers(message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {**message, "headers": [*message.get("headers", []), *added]}
            await send(message)

        language = language_of(
            cookie=HTTPConnection(scope).cookies.get(settings.LANGUAGE_COOKIE_NAME),
            accept_language=headers.get("accept-language"),
        )
        try:
            with translation.override(language):
                await self.app(scope, receive, send_with_headers)
        finally:
            method = scope["method"]
            request_context.log_access(
                method=method, path=scope["path"], route=self.route, status=status, started=started
            )
            metrics.record_http_request(
                route=self.route, method=method, status=status, seconds=time.perf_counter() - started
            )
            request_context.unbind(token)
