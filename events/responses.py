"""The event server's answers: JSON bodies, error bodies and headers as the web role gives them.

The body of a success is rendered by the API's own renderer function, an error's body and headers
come from the API's exception translation (infra/api/handler.py `error_parts`), and the security
headers are read from the same Django settings that Django's SecurityMiddleware reads, less the
page-only ones (infra/api/edge_headers.py); tests/events/test_same_answers.py asks both roles the
same questions.
"""

import logging

from django.conf import settings
from django.utils import translation
from starlette.requests import Request
from starlette.responses import Response

from infra.api.edge_headers import API_VERSION_HEADER, api_version
from infra.api.handler import error_parts
from infra.api.messages import language_of
from infra.api.renderers import render_json

logger = logging.getLogger(__name__)

JSON = "application/json"
# The size from which Django's GZipMiddleware compresses (and marks `Vary: Accept-Encoding`).
COMPRESS_MIN_BYTES = 200


def security_headers(*, secure: bool) -> dict[str, str]:
    """What SecurityMiddleware and infra/api/edge_headers.py leave on every JSON answer of the web
    role, from the settings they read (a request over https also gets Strict-Transport-Security when
    it is configured), and the API's version. The page-only headers are left off, as there."""
    headers = {}
    if secure and settings.SECURE_HSTS_SECONDS:
        value = f"max-age={settings.SECURE_HSTS_SECONDS}"
        if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS:
            value += "; includeSubDomains"
        if settings.SECURE_HSTS_PRELOAD:
            value += "; preload"
        headers["Strict-Transport-Security"] = value
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers["X-Content-Type-Options"] = "nosniff"
    headers[API_VERSION_HEADER] = api_version()
    return headers


def json_response(body, *, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    # As Django's LocaleMiddleware marks the web role's answers: an error's message follows the
    # reader's language (infra/api/messages.py).
    # From COMPRESS_MIN_BYTES on, the proxy compresses the answer (deploy/nginx.conf `gzip_min_length`), as
    # the web role's GZipMiddleware does its own: both say so from the same size.
    content = render_json(body)
    headers = {**(headers or {})}
    vary = [headers.get("Vary"), "Accept-Language"]
    if len(content) >= COMPRESS_MIN_BYTES:
        vary.append("Accept-Encoding")
    headers["Vary"] = ", ".join(filter(None, vary))
    return Response(content, status_code=status, media_type=JSON, headers=headers)


def error_response(exc: Exception, request: Request | None = None) -> Response:
    """The error answer of `exc`; an exception the API would not answer (a bug) is raised again.
    Its message is in the language `request` asks for, as the web role's (infra/api/messages.py)."""
    language = settings.LANGUAGE_CODE
    if request is not None:
        language = language_of(
            cookie=request.cookies.get(settings.LANGUAGE_COOKIE_NAME),
            accept_language=request.headers.get("accept-language"),
        )
    with translation.override(language):
        parts = error_parts(exc)
    if parts is None:
        raise exc
    status, body, headers = parts
    return json_response(body, status=status, headers=headers)
