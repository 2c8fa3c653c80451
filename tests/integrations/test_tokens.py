"""Personal access tokens (CONTRACT §7): scoped, hashed, named by a prefix, expiring, revocable."""

from datetime import timedelta

from django.utils import timezone

from accounts.models import AuthToken, TokenKind
from tests.conftest import assert_error


def _create(client, **payload):
    return client.post("/api/v1/auth/tokens", payload, format="json")


def test_a_token_is_shown_once_and_stored_hashed(make_user, make_client):
    user, login = make_user()
    client = make_client(login)
    response = _create(client, name="club site", scopes=["read", "play"], expires_in_days=7)
    assert response.status_code == 201, response.json()
    body = response.json()
    key = body["token"]
    assert key.startswith("bhp_") and body["prefix"] == key[:12]
    assert body["scopes"] == ["play", "read"] and body["name"] == "club site"
    assert body["last_used_at"] is None
    row = AuthToken.objects.get(pk=body["id"])
    assert row.kind == TokenKind.PERSONAL and row.key_hash == AuthToken.hash_key(key)
    assert not AuthToken.objects.filter(key_hash=key).exists()
    assert abs((row.expires_at - timezone.now()) - timedelta(days=7)) < timedelta(minutes=1)
    listed = client.get("/api/v1/auth/tokens").json()["tokens"]
    assert [t["id"] for t in listed] == [body["id"]] and "token" not in listed[0]
    # It works, and its use is recorded.
    me = make_client(key).get("/api/v1/me")
    assert me.status_code == 200 and me.json()["id"] == user.pk
    row.refresh_from_db()
    assert row.last_used_at is not None
    assert row.expires_at == AuthToken.objects.get(pk=row.pk).expires_at  # a fixed expiry, not sliding


def test_a_token_cannot_mint_a_wider_one(make_user, make_client):
    _, login = make_user()
    narrow = _create(make_client(login), name="n", scopes=["read"]).json()["token"]
    assert_error(_create(make_client(narrow), name="w", scopes=["read", "play"]), 403, "missing_scope")
    assert _create(make_client(narrow), name="same", scopes=["read"]).status_code == 201
    assert AuthToken.objects.filter(kind=TokenKind.PERSONAL).count() == 2


def test_bad_token_requests_are_refused(make_user, make_client):
    _, login = make_user()
    client = make_client(login)
    for payload in (
        {"name": "x", "scopes": []},
        {"name": "x", "scopes": ["admin"]},
        {"name": "x", "scopes": ["read"], "expires_in_days": 0},
        {"name": "x", "scopes": ["read"], "expires_in_days": 100000},
        {"scopes": ["read"]},
        {"name": "x", "scopes": ["read"], "extra": 1},
    ):
        assert_error(_create(client, **payload), 400, "invalid_request")
    assert not AuthToken.objects.filter(kind=TokenKind.PERSONAL).exists()


def test_a_revoked_token_is_401(make_user, make_client):
    _, login = make_user()
    client = make_client(login)
    created = _create(client, name="x", scopes=["read"]).json()
    assert make_client(created["token"]).get("/api/v1/me").status_code == 200
    assert client.delete(f"/api/v1/auth/tokens/{created['id']}").status_code == 204
    assert_error(make_client(created["token"]).get("/api/v1/me"), 401, "not_authenticated")
    assert client.get("/api/v1/auth/tokens").json()["tokens"] == []
    assert_error(client.delete(f"/api/v1/auth/tokens/{created['id']}"), 404, "not_found")


def test_an_expired_token_is_401(make_user, make_client):
    _, login = make_user()
    created = _create(make_client(login), name="x", scopes=["read"]).json()
    AuthToken.objects.filter(pk=created["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert_error(make_client(created["token"]).get("/api/v1/me"), 401, "not_authenticated")


def test_someone_elses_token_cannot_be_revoked(make_user, make_client):
    _, owner_login = make_user()
    _, other_login = make_user()
    created = _create(make_client(owner_login), name="x", scopes=["read"]).json()
    assert_error(make_client(other_login).delete(f"/api/v1/auth/tokens/{created['id']}"), 404, "not_found")
    assert make_client(created["token"]).get("/api/v1/me").status_code == 200


def test_login_tokens_carry_every_scope_the_user_may_have(make_user, make_client):
    _, token = make_user(staff=True)
    client = make_client(token)
    every = ["moderation", "play", "read", "tables", "webhooks"]
    response = _create(client, name="all", scopes=every)
    assert response.status_code == 201 and response.json()["scopes"] == every
    guest = make_client().post("/api/v1/auth/guest").json()["token"]
    assert _create(make_client(guest), name="g", scopes=["play", "tables"]).status_code == 201
    assert_error(_create(make_client(guest), name="g", scopes=["moderation"]), 403, "missing_scope")


def test_logout_all_ends_personal_tokens_too(make_user, make_client):
    _, login = make_user()
    client = make_client(login)
    key = _create(client, name="x", scopes=["read"]).json()["token"]
    assert client.post("/api/v1/auth/logout-all").status_code == 204
    assert_error(make_client(key).get("/api/v1/me"), 401, "not_authenticated")
