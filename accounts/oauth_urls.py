"""The OAuth 2 pages under /o/ (django-oauth-toolkit): its endpoints as it ships them, and its
application and token management pages with their `pk` matched by the API's id converter.

The toolkit's own management patterns take `<slug:pk>`, so `/o/applications/abc/` queried the
integer key with "abc": a 500 for a signed-in user (issue 26). Here an id that no row can have is no
URL at all (404, infra/api/converters.py), with the same views and URL names.
"""

from django.urls import path
from oauth2_provider import urls as oauth_urls
from oauth2_provider import views

from infra.api import converters  # noqa: F401 - registers <id:...>

app_name = "oauth2_provider"

management_urlpatterns = [
    path("applications/", views.ApplicationList.as_view(), name="list"),
    path("applications/register/", views.ApplicationRegistration.as_view(), name="register"),
    path("applications/<id:pk>/", views.ApplicationDetail.as_view(), name="detail"),
    path("applications/<id:pk>/delete/", views.ApplicationDelete.as_view(), name="delete"),
    path("applications/<id:pk>/update/", views.ApplicationUpdate.as_view(), name="update"),
    path("authorized_tokens/", views.AuthorizedTokensListView.as_view(), name="authorized-token-list"),
    path(
        "authorized_tokens/<id:pk>/delete/",
        views.AuthorizedTokenDeleteView.as_view(),
        name="authorized-token-delete",
    ),
]

# Only the OAuth endpoints and application management: no OIDC, no dynamic client registration.
urlpatterns = oauth_urls.base_urlpatterns + management_urlpatterns
