"""`Authorization: Bearer <token>`: our tokens (login and personal, with per-token revocation), then
django-oauth-toolkit's OAuth access tokens, so third-party apps use the same header everywhere."""

from oauth2_provider.contrib.rest_framework import OAuth2Authentication
from rest_framework import authentication, exceptions

from accounts import selectors


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
