"""`Authorization: Bearer <token>`: DRF's token scheme with per-token revocation."""

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
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        return token.user, token

    def authenticate_header(self, request) -> str:
        return f'{self.keyword} realm="api"'
