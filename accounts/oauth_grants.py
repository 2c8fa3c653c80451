"""OAuth 2 here is the authorization code grant with PKCE and its refresh tokens, nothing else
(docs/integrations.md "OAuth 2"): no password grant, no implicit grant, no client credentials, no
device grant, whatever an application row says.

The toolkit ships every grant of RFC 6749 and lets anyone signed in register an application for any
of them. A password-grant application turned `POST /o/token/` into a password oracle outside the
sign-in lock-out and its throttles (docs/security.md), and an implicit one received tokens in the
redirect with no PKCE (issue 37). So the refusal is made three times, each through the toolkit's
documented hooks:

* the server (`OAUTH2_SERVER_CLASS`) knows only the `code` response type and the
  `authorization_code` and `refresh_token` grants: any other answers RFC 6749's
  `unsupported_response_type` / `unsupported_grant_type` before a parameter is looked at, so no
  password is ever checked at /o/token/ (oauthlib's password grant checks it *before* asking whether
  the client may use the grant);
* the validator (`OAUTH2_VALIDATOR_CLASS`) honours those only for an application registered for the
  authorization code grant, so a row made earlier (or by an admin) for another grant gets no token,
  not even from a refresh token it already holds (`unauthorized_client`);
* the forms (`/o/applications/register/`, its update page, the admin's: accounts/oauth_admin.py)
  offer only that grant.
"""

from django.utils.translation import gettext_lazy as _
from oauth2_provider.forms import ApplicationForm
from oauth2_provider.models import AbstractApplication
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauthlib.oauth2 import (
    AuthorizationCodeGrant,
    AuthorizationEndpoint,
    BearerToken,
    IntrospectEndpoint,
    RefreshTokenGrant,
    ResourceEndpoint,
    RevocationEndpoint,
    TokenEndpoint,
)

APPLICATION_GRANT = AbstractApplication.GRANT_AUTHORIZATION_CODE
TOKEN_GRANTS = frozenset({"authorization_code", "refresh_token"})
RESPONSE_TYPE = "code"


class AuthorizationCodeServer(
    AuthorizationEndpoint, IntrospectEndpoint, TokenEndpoint, ResourceEndpoint, RevocationEndpoint
):
    """oauthlib's pre-configured `Server` with only the authorization code and refresh token grants.

    The toolkit passes the device flow's settings too (`verification_uri`, `interval`...); they have
    no grant here to go to."""

    def __init__(
        self,
        request_validator,
        token_expires_in=None,
        token_generator=None,
        refresh_token_generator=None,
        **_,
    ):
        self.auth_grant = AuthorizationCodeGrant(request_validator)
        self.refresh_grant = RefreshTokenGrant(request_validator)
        self.bearer = BearerToken(
            request_validator, token_generator, token_expires_in, refresh_token_generator
        )
        AuthorizationEndpoint.__init__(
            self,
            default_response_type=RESPONSE_TYPE,
            response_types={RESPONSE_TYPE: self.auth_grant},
            default_token_type=self.bearer,
        )
        TokenEndpoint.__init__(
            self,
            default_grant_type="authorization_code",
            grant_types={"authorization_code": self.auth_grant, "refresh_token": self.refresh_grant},
            default_token_type=self.bearer,
        )
        ResourceEndpoint.__init__(self, default_token="Bearer", token_types={"Bearer": self.bearer})
        RevocationEndpoint.__init__(self, request_validator)
        IntrospectEndpoint.__init__(self, request_validator)


class AuthorizationCodeValidator(OAuth2Validator):
    """The toolkit's validator, honouring only the authorization code grant's applications."""

    def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
        if grant_type not in TOKEN_GRANTS or not client.allows_grant_type(APPLICATION_GRANT):
            return False
        return super().validate_grant_type(client_id, grant_type, client, request, *args, **kwargs)

    def validate_response_type(self, client_id, response_type, client, request, *args, **kwargs):
        if response_type != RESPONSE_TYPE:
            return False
        return super().validate_response_type(client_id, response_type, client, request, *args, **kwargs)

    def validate_user(self, username, password, client, request, *args, **kwargs):
        # No grant here takes a password; a password is checked only where the lock-out counts it.
        return False


class AuthorizationCodeApplicationForm(ApplicationForm):
    """The toolkit's application form offering one grant: authorization code (with PKCE). The client
    type stays the integrator's choice (a confidential server or a public app)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        grant = self.fields.get("authorization_grant_type")
        if grant is not None:
            grant.choices = [(APPLICATION_GRANT, _("Authorization code (with PKCE)"))]
            grant.initial = APPLICATION_GRANT
