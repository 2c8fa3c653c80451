"""What tells an app in a store which API it talks to and when to update (docs/changelog.md
"Versions and deprecation", docs/deploy.md "Minimum client version")."""

from datetime import date

import pytest
from django.test import override_settings
from django.urls import path
from rest_framework.response import Response
from rest_framework.views import APIView

from infra.api.deprecation import deprecated
from infra.api.errors import ApiError, ErrorCode

pytestmark = pytest.mark.django_db


def test_no_minimum_by_default_lets_any_client_version_through(make_user, make_client):
    _, token = make_user()
    response = make_client(token).get("/api/v1/me", HTTP_X_CLIENT_VERSION="0.0.1")
    assert response.status_code == 200


@override_settings(API_MIN_CLIENT_VERSION="2.4.0", API_CLIENT_UPGRADE_URL="https://store.example/app")
@pytest.mark.parametrize(
    ("sent", "status"), [("2.3.9", 426), ("2.4.0", 200), ("10.0", 200), (None, 200), ("banana", 400)]
)
def test_a_client_below_the_minimum_is_told_to_update(make_user, make_client, sent, status):
    _, token = make_user()
    headers = {} if sent is None else {"HTTP_X_CLIENT_VERSION": sent}
    response = make_client(token).get("/api/v1/me", **headers)
    assert response.status_code == status, response.content
    if status == 426:
        assert response.json() == {
            "code": "upgrade_required",
            "message": "This app is too old: update it to 2.4.0 or later.",
            "extra": {"minimum_version": "2.4.0", "upgrade_url": "https://store.example/app"},
        }
        assert response.headers["API-Version"]
    if status == 400:
        assert response.json()["code"] == "invalid_request"


class _OldApi(APIView):
    authentication_classes = []
    permission_classes = []

    @deprecated(since=date(2026, 12, 1))
    def get(self, request):
        if "fail" in request.query_params:
            raise ApiError(ErrorCode.NOT_FOUND, "Not found.")
        return Response({"old": True})


urlpatterns = [path("api/v1/old", _OldApi.as_view())]


@override_settings(ROOT_URLCONF=__name__, API_SUPPORT_WINDOW_MONTHS=18)
@pytest.mark.parametrize(("query", "status"), [({}, 200), ({"fail": 1}, 404)])
def test_a_deprecated_operation_says_when_it_was_deprecated_and_when_it_may_go(client, query, status):
    response = client.get("/api/v1/old", query)
    assert response.status_code == status
    assert response.headers["Deprecation"] == "@1796083200"  # 2026-12-01T00:00:00Z
    assert response.headers["Sunset"] == "Thu, 01 Jun 2028 00:00:00 GMT"  # 18 months on


def test_nothing_undeprecated_carries_the_headers(make_user, make_client):
    _, token = make_user()
    response = make_client(token).get("/api/v1/me")
    assert "Deprecation" not in response.headers and "Sunset" not in response.headers
