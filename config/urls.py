from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_update
from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from accounts.oauth_login import OAuthLoginView
from infra import health, metrics_view
from infra.api import converters  # noqa: F401 - registers <id:...> and <seat:...>

# Games first: a move and a log read are most of the traffic, and Django tries the patterns in
# order (no two apps' patterns match the same path, so the order changes nothing else).
api_v1 = [
    path("", include("games.urls")),
    path("", include("accounts.urls")),
    path("", include("matchmaking.urls")),
    path("", include("matchmaking.moderation.urls")),
    path("", include("tournaments.urls")),
]

if settings.BENCH_ENDPOINTS:
    from games.bench import BenchBareMoveApi

    api_v1.append(path("_bench/bare/<id:game_id>", BenchBareMoveApi.as_view(), name="bench-bare"))

urlpatterns = [
    path("admin/", admin.site.urls),
    # OAuth 2 for third-party apps (django-oauth-toolkit): authorize (the consent page), token, revoke.
    path("o/login/", OAuthLoginView.as_view(), name="oauth-login"),
    path("o/", include("accounts.oauth_urls")),
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # Swagger UI and ReDoc from drf-spectacular-sidecar's static files: no CDN, so they work offline.
    # Both under the pages' policy (CONTENT_SECURITY_POLICY): Swagger UI's start script is a file
    # (the split view), its page's styles too (config/templates/api/swagger_ui.html). ReDoc writes
    # its styles into <style> elements and runs its search in a blob: worker: that page alone allows
    # both.
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="api/swagger_ui.html"),
        name="docs",
    ),
    path(
        "api/redoc/",
        csp_update({"style-src": [UNSAFE_INLINE], "worker-src": [SELF, "blob:"]})(
            SpectacularRedocView.as_view(url_name="schema", template_name="api/redoc.html")
        ),
        name="redoc",
    ),
    # Operator endpoints, outside /api/ and out of the OpenAPI schema (plain Django views).
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics_view.metrics_view, name="metrics"),
    # The language switch of the web client and the admin (Django's set_language view).
    path("i18n/", include("django.conf.urls.i18n")),
    # The browser client (web/): /, /play/<game>, /replay/<game>.
    path("", include("web.urls")),
]

handler400 = "infra.api.handler.json_400"
handler403 = "infra.api.handler.json_403"
handler404 = "infra.api.handler.json_404"
handler500 = "infra.api.handler.json_500"
# Static files (the web client, the admin's, the API docs pages') are served by WhiteNoise's middleware
# in every role (config/settings/base.py).
