"""An OAuth 2 application and an access token of it, made directly (the flows themselves are
tests/integrations/test_oauth.py's)."""

from datetime import timedelta

from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model


def oauth_access_token(user, *, scope: str = "read", expires_in: timedelta = timedelta(hours=1), token=None):
    app = get_application_model().objects.create(
        name="app",
        user=user,
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:8765/cb",
    )
    return get_access_token_model().objects.create(
        user=user,
        application=app,
        token=token or f"oauth-{user.pk}-{scope.replace(' ', '-')}",
        scope=scope,
        expires=timezone.now() + expires_in,
    )
