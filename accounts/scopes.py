"""What a token may do (docs/integrations.md): scopes, and the scopes a request actually holds.

A login token (auth/token, auth/register, auth/guest) stores no scopes: it carries every scope its
user may have, decided at each request, so a user made staff gets `moderation` without signing in
again. A personal access token or an OAuth token holds what it was granted, and never more than the
user may have now.
"""

from django.db import models

from accounts.models import AuthToken


class Scope(models.TextChoices):
    READ = "read", "Read everything you can see (every GET)."
    PLAY = "play", "Play: game actions, trustee, joining and leaving tables, tickets."
    TABLES = "tables", "Create tables and manage the tables you created."
    WEBHOOKS = "webhooks", "Manage your webhooks and see their deliveries."
    TOKENS = "tokens", "Your credentials: personal access tokens, signing out everywhere."
    MODERATION = "moderation", "Moderation endpoints (staff only)."


ALL_SCOPES: frozenset[str] = frozenset(Scope.values)
# An integrator's bot account plays; it neither moderates nor manages webhooks.
BOT_SCOPES: frozenset[str] = frozenset({Scope.READ, Scope.PLAY, Scope.TABLES})


def scopes_allowed(*, user) -> frozenset[str]:
    """Every scope `user` may hold."""
    if getattr(user, "is_bot", False):
        return BOT_SCOPES
    if getattr(user, "is_staff", False):
        return ALL_SCOPES
    return ALL_SCOPES - {Scope.MODERATION}


def scopes_granted(*, user, auth) -> frozenset[str]:
    """The scopes this request holds: what its token grants, cut to what the user may have now.

    `auth` is our AuthToken (login or personal) or django-oauth-toolkit's AccessToken (its `scope` is
    a space-separated string)."""
    allowed = scopes_allowed(user=user)
    if isinstance(auth, AuthToken):
        return allowed if auth.scopes is None else allowed & frozenset(auth.scopes)
    oauth_scope = getattr(auth, "scope", None)
    if isinstance(oauth_scope, str):
        return allowed & frozenset(oauth_scope.split())
    # Nothing else authenticates the API (accounts.authentication); grant nothing to the unknown.
    return frozenset()
