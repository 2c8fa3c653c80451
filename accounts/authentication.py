"""`Authorization: Bearer <token>`: our tokens (login and personal, with per-token revocation), then
django-oauth-toolkit's OAuth access tokens, so third-party apps use the same header everywhere.

`bearer_credential` is the one lookup: DRF's authentication class below and the event server
(events/access.py) both call it, so a token means the same on either role.
"""

import hashlib
from dataclasses import dataclass

from oauth2_provider.models import get_access_token_model
from rest_framework import authentication, exceptions

from accounts import selectors


@dataclass(frozen=True)
class Credential:
    """Who a request acts for, and with what: our AuthToken or an OAuth AccessToken."""

    user: object
    token: object


def bearer_key(header: bytes) -> str | None:
    """The token of an `Authorization` header value, None when it is no bearer header at all;
    `AuthenticationFailed` when it is one, malformed."""
    parts = header.split()
    if not parts or parts[0].lower() != b"bearer":
        return None
    if len(parts) != 2:
        raise exceptions.AuthenticationFailed("Invalid bearer header.")
    try:
        return parts[1].decode()
    except UnicodeError as exc:
        raise exceptions.AuthenticationFailed("Invalid token.") from exc


def _oauth_token(key: str):
    """An unexpired OAuth access token with this key (django-oauth-toolkit keeps the key's SHA-256 as
    `token_checksum`). Tokens bound to other resource servers (RFC 8707 `resource`) are not ours to
    accept: this server issues none."""
    checksum = hashlib.sha256(key.encode()).hexdigest()
    token = get_access_token_model().objects.select_related("user").filter(token_checksum=checksum).first()
    if token is None or token.user is None or not token.is_valid() or token.resource:
        return None
    return token


def bearer_credential(key: str) -> Credential:
    """The credential of a bearer token, or `AuthenticationFailed` (401)."""
    token = selectors.token_get_active(key=key)
    if token is not None and token.user.is_active:
        return Credential(user=token.user, token=token)
    if token is None:
        oauth = _oauth_token(key)
        if oauth is not None and oauth.user.is_active:
            return Credential(user=oauth.user, token=oauth)
    raise exceptions.AuthenticationFailed("Invalid, expired or revoked token.")


class BearerTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        key = bearer_key(authentication.get_authorization_header(request))
        if key is None:
            return None
        credential = bearer_credential(key)
        return credential.user, credential.token

    def authenticate_header(self, request) -> str:
        return f'{self.keyword} realm="api"'
