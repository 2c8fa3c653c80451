"""The admin of OAuth applications (the toolkit's `APPLICATION_ADMIN_CLASS`): the toolkit's own,
offering only the authorization code grant (accounts/oauth_grants.py).

A module of its own: the toolkit's admin module imports this class while it is itself being
imported, so nothing else may import this module first."""

from oauth2_provider.admin import ApplicationAdmin

from accounts.oauth_grants import AuthorizationCodeApplicationForm


class AuthorizationCodeApplicationAdmin(ApplicationAdmin):
    form = AuthorizationCodeApplicationForm
