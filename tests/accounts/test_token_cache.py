"""Bearer-token lookups in the shared cache (accounts/token_cache.py): a repeated request costs no
token query, and nothing the lookup answers for can be stale: revocation, logout everywhere, a
ban imposed or revoked, a deactivated user, expiry, a ban that ends by time."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import AuthToken, Sanction, SanctionKind
from tests.conftest import assert_error
from tests.moderation.helpers import Clock, make_moderator

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _cache_on(settings):
    settings.AUTH_TOKEN_CACHE_SECONDS = 60


def _token_queries(client, path="/api/v1/me") -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    assert response.status_code == 200, response.json()
    return sum('"accounts_authtoken"' in q["sql"] and q["sql"].startswith("SELECT") for q in queries)


def test_a_repeated_request_costs_no_token_query(make_user, make_client):
    _, token = make_user()
    client = make_client(token)
    assert _token_queries(client) == 1
    assert _token_queries(client) == 0
    assert _token_queries(client, "/api/v1/me/active") == 0


def test_the_cache_is_off_by_default_without_redis(make_user, make_client, settings):
    settings.AUTH_TOKEN_CACHE_SECONDS = 0
    _, token = make_user()
    client = make_client(token)
    assert _token_queries(client) == 1 and _token_queries(client) == 1


def test_signing_out_stops_the_token_at_once(make_user, make_client):
    _, token = make_user()
    client = make_client(token)
    _token_queries(client)
    assert client.post("/api/v1/auth/logout").status_code == 204
    assert_error(client.get("/api/v1/me"), 401, "not_authenticated")


def test_signing_out_everywhere_stops_every_token(make_user, make_client):
    user, token = make_user()
    from accounts import services

    other = make_client(services.token_create(user=user))
    _token_queries(other)
    assert make_client(token).post("/api/v1/auth/logout-all").status_code == 204
    assert_error(other.get("/api/v1/me"), 401, "not_authenticated")


def test_a_deleted_personal_token_stops_at_once(make_user, make_client):
    _, token = make_user()
    owner = make_client(token)
    made = owner.post("/api/v1/auth/tokens", {"name": "ci", "scopes": ["read"]}, format="json").json()
    personal = make_client(made["token"])
    _token_queries(personal)
    assert owner.delete(f"/api/v1/auth/tokens/{made['id']}").status_code == 204
    assert_error(personal.get("/api/v1/me/active"), 401, "not_authenticated")


def test_a_ban_bites_and_its_revocation_lifts_at_once(make_user, make_client):
    user, token = make_user()
    client = make_client(token)
    _token_queries(client, "/api/v1/me/active")
    _, moderator = make_moderator(make_user, make_client)
    imposed = moderator.post(
        "/api/v1/moderation/sanctions", {"user": user.pk, "kind": "ban", "reason": "abuse"}, format="json"
    )
    assert imposed.status_code == 201, imposed.json()
    assert_error(client.get("/api/v1/me/active"), 403, "banned")
    revoked = moderator.post(
        f"/api/v1/moderation/sanctions/{imposed.json()['id']}/revoke", {"note": "appeal"}, format="json"
    )
    assert revoked.status_code == 200, revoked.json()
    assert client.get("/api/v1/me/active").status_code == 200


def test_a_ban_that_ends_by_time_ends_while_cached(make_user, make_client, monkeypatch):
    start = timezone.now()
    clock = Clock(monkeypatch, start)
    user, token = make_user()
    Sanction.objects.create(
        user=user, kind=SanctionKind.BAN, reason="cool off", expires_at=start + timedelta(minutes=5)
    )
    client = make_client(token)
    assert_error(client.get("/api/v1/me/active"), 403, "banned")
    clock.set(start + timedelta(minutes=5, seconds=1))
    assert client.get("/api/v1/me/active").status_code == 200


def test_a_token_that_expires_while_cached_stops(make_user, make_client, monkeypatch):
    start = timezone.now()
    clock = Clock(monkeypatch, start)
    _, token = make_user()
    client = make_client(token)
    _token_queries(client)
    stored = AuthToken.objects.get()
    clock.set(stored.expires_at + timedelta(seconds=1))
    assert_error(client.get("/api/v1/me"), 401, "not_authenticated")


def test_a_deactivated_user_is_refused_at_once(make_user, make_client):
    user, token = make_user()
    client = make_client(token)
    _token_queries(client)
    user.is_active = False
    user.save()
    assert_error(client.get("/api/v1/me"), 401, "not_authenticated")
