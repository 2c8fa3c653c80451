"""django-oauth-toolkit's OAuthLib backend, refusing a NUL in any parameter up front.

The toolkit looks every parameter up in the database as it came (`client_id`, `code`, `token`,
`refresh_token`...), and PostgreSQL holds no NUL in text: psycopg raises `DataError` on the query,
which the toolkit does not expect (its own guard catches only the `ValueError` psycopg 2 raised), so
`POST /o/token/ client_id=%00` and `GET /o/authorize/?client_id=%00` were 500s (issue 26), and on
SQLite the same request was an ordinary refusal. No parameter of OAuth 2 can hold a NUL, so each
endpoint answers such a request as malformed, the way it answers any other malformed one: the token,
revocation and device endpoints with RFC 6749's `400 {"error": "invalid_request"}`, the consent page
with its error page (400), never redirecting to the client. Installed by `OAUTH2_BACKEND_CLASS`.
"""

import base64
import binascii
from urllib.parse import unquote_plus

from oauth2_provider.exceptions import FatalClientError
from oauth2_provider.oauth2_backends import OAuthLibCore
from oauthlib.oauth2 import InvalidRequestError, InvalidRequestFatalError

_REFUSAL = "A parameter holds a NUL character."


def _holds_nul(text: str) -> bool:
    return "\x00" in text


def request_holds_nul(request) -> bool:
    """Whether a query or form parameter (name or value), or the Basic credentials, hold a NUL."""
    for params in (request.GET, request.POST):
        for name, values in params.lists():
            if _holds_nul(name) or any(_holds_nul(value) for value in values):
                return True
    authorization = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, credentials = authorization.partition(" ")
    if scheme.lower() != "basic":
        return _holds_nul(authorization)
    try:
        decoded = base64.b64decode(credentials.strip()).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False  # the toolkit refuses malformed credentials itself (401 invalid_client)
    # The toolkit unquotes the client id and secret (RFC 6749 §2.3.1 form-encodes them).
    return _holds_nul(unquote_plus(decoded))


def _malformed() -> tuple[dict, str, int]:
    """The headers, body and status of RFC 6749's error answer (§5.2), as oauthlib's endpoints give it."""
    error = InvalidRequestError(description=_REFUSAL)
    headers = {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"}
    return {**headers, **error.headers}, error.json, error.status_code


class NulRefusingOAuthLibCore(OAuthLibCore):
    def validate_authorization_request(self, request):
        if request_holds_nul(request):
            # Fatal: the redirect URI is not to be trusted, the page shows the error itself.
            raise FatalClientError(error=InvalidRequestFatalError(description=_REFUSAL))
        return super().validate_authorization_request(request)

    def create_authorization_response(self, request, scopes, credentials, allow):
        if request_holds_nul(request):
            raise FatalClientError(error=InvalidRequestFatalError(description=_REFUSAL))
        return super().create_authorization_response(request, scopes, credentials, allow)

    def create_token_response(self, request):
        if request_holds_nul(request):
            return None, *_malformed()
        return super().create_token_response(request)

    def create_revocation_response(self, request):
        if request_holds_nul(request):
            return None, *_malformed()
        return super().create_revocation_response(request)

    def create_device_authorization_response(self, request):
        if request_holds_nul(request):
            return _malformed()
        return super().create_device_authorization_response(request)

    def verify_request(self, request, scopes):
        if request_holds_nul(request):
            return False, None
        return super().verify_request(request, scopes)

    def authenticate_client(self, request):
        if request_holds_nul(request):
            return False
        return super().authenticate_client(request)
