"""Personal access tokens (docs/integrations.md): scoped, hashed, named by a prefix, expiring, revocable."""

from datetime import timedelta

from django.utils import timezone

from accounts.models import AuthToken, TokenKind
from tests.conftest import assert_error
from tests.integrations.oauth import oauth_access_token


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


def test_a_personal_token_cannot_mint_another(make_user, make_client):
    """A 1-day token must not mint a 366-day one: only a login token creates personal tokens, so no
    credential yields a longer-lived or broader one (docs/integrations.md "Personal access tokens")."""
    _, login = make_user()
    short = _create(make_client(login), name="n", scopes=["read"], expires_in_days=1).json()["token"]
    longer = _create(make_client(short), name="w", scopes=["read"], expires_in_days=366)
    assert_error(longer, 403, "missing_scope")
    # Even one that may manage credentials cannot mint.
    manager = _create(make_client(login), name="m", scopes=["read", "tokens"], expires_in_days=1).json()
    body = assert_error(
        _create(make_client(manager["token"]), name="w", scopes=["read"], expires_in_days=366),
        403,
        "permission_denied",
    )
    assert "login token" in body["message"]
    assert AuthToken.objects.filter(kind=TokenKind.PERSONAL).count() == 2
    # Managing the others is what `tokens` allows.
    listed = make_client(manager["token"]).get("/api/v1/auth/tokens")
    assert listed.status_code == 200 and len(listed.json()["tokens"]) == 2


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
    every = ["moderation", "play", "read", "tables", "tokens", "webhooks"]
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


def test_an_oauth_token_holds_its_granted_scopes_only(make_user, make_client):
    user, _ = make_user()
    access = oauth_access_token(user, scope="read moderation", expires_in=timedelta(hours=1))
    client = make_client(access.token)
    assert client.get("/api/v1/me").json()["id"] == user.pk
    assert_error(client.post("/api/v1/tables", {"preset": "weihai"}, format="json"), 403, "missing_scope")
    # `moderation` granted to someone who is not staff is no moderation.
    assert_error(client.get("/api/v1/moderation/audit"), 403, "permission_denied")
    assert_error(
        client.post("/api/v1/auth/tokens", {"name": "m", "scopes": ["moderation"]}, format="json"),
        403,
        "missing_scope",
    )


def test_an_expired_oauth_token_is_401(make_user, make_client):
    user, _ = make_user()
    access = oauth_access_token(user, scope="read play", expires_in=-timedelta(seconds=1))
    assert_error(make_client(access.token).get("/api/v1/me"), 401, "not_authenticated")


def test_logging_out_with_an_oauth_token_revokes_it(make_user, make_client):
    user, _ = make_user()
    access = oauth_access_token(user, scope="read", expires_in=timedelta(hours=1))
    client = make_client(access.token)
    assert client.post("/api/v1/auth/logout").status_code == 204
    assert_error(client.get("/api/v1/me"), 401, "not_authenticated")
    assert AuthToken.objects.filter(revoked_at__isnull=False).count() == 0  # none of ours touched


def test_an_oauth_token_mints_nothing_and_its_revocation_leaves_nothing_behind(
    make_user, make_client, client
):
    """The probe's path: an OAuth access token (1 h, `read`) asked for a 366-day personal token."""
    user, _ = make_user()
    access = oauth_access_token(user, scope="read", expires_in=timedelta(hours=1))
    oauth = make_client(access.token)
    mint = {"name": "x", "scopes": ["read"], "expires_in_days": 366}
    assert_error(oauth.post("/api/v1/auth/tokens", mint, format="json"), 403, "missing_scope")
    # Granted `tokens` by the user, an app may list and revoke his tokens, but still not mint one.
    manager = oauth_access_token(user, scope="read tokens", expires_in=timedelta(hours=1))
    body = assert_error(
        make_client(manager.token).post("/api/v1/auth/tokens", mint, format="json"),
        403,
        "permission_denied",
    )
    assert body["extra"] == {}
    assert not AuthToken.objects.filter(kind=TokenKind.PERSONAL).exists()
    revoked = client.post(
        "/o/revoke_token/", {"token": access.token, "client_id": access.application.client_id}
    )
    assert revoked.status_code == 200
    assert_error(oauth.get("/api/v1/me"), 401, "not_authenticated")
