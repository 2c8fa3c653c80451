"""The OAuth 2 pages under /o/ (django-oauth-toolkit): the authorization code flow's endpoints, and its
application and token management pages with their `pk` matched by the API's id converter.

The toolkit's own management patterns take `<slug:pk>`, so `/o/applications/abc/` queried the
integer key with "abc": a 500 for a signed-in user (issue 26). Here an id that no row can have is no
URL at all (404, infra/api/converters.py), with the same views and URL names.
"""

from django.forms.models import modelform_factory
from django.urls import path
from oauth2_provider import views
from oauth2_provider.models import get_application_model
from oauth2_provider.views.application import APPLICATION_FIELDS

from accounts.oauth_grants import AuthorizationCodeApplicationForm
from infra.api import converters  # noqa: F401 - registers <id:...>

app_name = "oauth2_provider"


class TokenView(views.TokenView):
    """/o/token/ through the server alone: the toolkit's view answers the device grant itself, from its
    own rows, before the server is asked (and a 500 when `device_code` is missing); here it is one
    more grant the server does not know (`unsupported_grant_type`)."""

    def post(self, request, *args, **kwargs):
        return self.authorization_flow_token_response(request)


class ApplicationRegistration(views.ApplicationRegistration):
    """Registration offering only the authorization code grant (accounts/oauth_grants.py): a
    password, implicit, client credentials or device application is a form error, nothing is created."""

    def get_form_class(self):
        return modelform_factory(
            get_application_model(), form=AuthorizationCodeApplicationForm, fields=APPLICATION_FIELDS
        )


class ApplicationUpdate(views.ApplicationUpdate):
    """The same one grant when an application is edited."""

    def get_form_class(self):
        return modelform_factory(
            get_application_model(), form=AuthorizationCodeApplicationForm, fields=APPLICATION_FIELDS
        )


management_urlpatterns = [
    path("applications/", views.ApplicationList.as_view(), name="list"),
    path("applications/register/", ApplicationRegistration.as_view(), name="register"),
    path("applications/<id:pk>/", views.ApplicationDetail.as_view(), name="detail"),
    path("applications/<id:pk>/delete/", views.ApplicationDelete.as_view(), name="delete"),
    path("applications/<id:pk>/update/", ApplicationUpdate.as_view(), name="update"),
    path("authorized_tokens/", views.AuthorizedTokensListView.as_view(), name="authorized-token-list"),
    path(
        "authorized_tokens/<id:pk>/delete/",
        views.AuthorizedTokenDeleteView.as_view(),
        name="authorized-token-delete",
    ),
]

# The authorization code flow's endpoints (accounts/oauth_grants.py) and application management
# (docs/integrations.md "OAuth 2"): no token introspection, no device flow (its pages would start a
# grant no application may use), no OIDC, no dynamic client registration.
endpoint_urlpatterns = [
    path("authorize/", views.AuthorizationView.as_view(), name="authorize"),
    path("token/", TokenView.as_view(), name="token"),
    path("revoke_token/", views.RevokeTokenView.as_view(), name="revoke-token"),
]

urlpatterns = endpoint_urlpatterns + management_urlpatterns
