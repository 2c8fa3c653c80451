"""`Authorization: Bearer <token>`: our tokens (login and personal, with per-token revocation), then
django-oauth-toolkit's OAuth access tokens, so third-party apps use the same header everywhere."""

import re

from oauth2_provider.contrib.rest_framework import OAuth2Authentication
from rest_framework import authentication, exceptions

from accounts import selectors
from accounts.scopes import Scope, scopes_granted


class BearerTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Invalid bearer header.")
        try:
            key = header[1].decode()
        except UnicodeError as exc:
            raise exceptions.AuthenticationFailed("Invalid token.") from exc
        token = selectors.token_get_active(key=key)
        if token is not None and token.user.is_active:
            return token.user, token
        if token is None:
            # Not ours: perhaps an OAuth access token (expired, revoked or unknown ones give None).
            oauth = OAuth2Authentication().authenticate(request)
            if oauth is not None and oauth[0].is_active:
                return oauth
        raise exceptions.AuthenticationFailed("Invalid, expired or revoked token.")

    def authenticate_header(self, request) -> str:
        return f'{self.keyword} realm="api"'


_BEARER = re.compile(r"[Bb][Ee][Aa][Rr][Ee][Rr] +([!-~]{1,512})")


def bearer_token_vouched(request) -> bool:
    """The cheap form of an open stream's periodic check (config/api/sse.py): the request's bearer
    token may still be used as is, for the same user, unbanned, with the read scope. Asks the token
    cache first (no query; revoking a token, a ban or a user change forgets the cached token), then
    the database once (selectors.token_get_active, which puts it back in the cache): when the
    cache's minute ran out for every stream opened in the same minute, each of them ran its whole
    view at once (docs/scaling.md). False sends the stream to its view's full checks, which decide."""
    match = _BEARER.fullmatch(request.META.get("HTTP_AUTHORIZATION", ""))
    if match is None:
        return False
    key = match.group(1)
    token = selectors.token_get_cached(key=key) or selectors.token_get_active(key=key)
    return (
        token is not None
        and token.user.pk == request.user.pk
        and token.user.is_active
        and getattr(token.user, "active_ban_id", "unknown") is None
        and Scope.READ in scopes_granted(user=token.user, auth=token)
    )
