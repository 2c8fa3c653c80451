import pytest

from accounts.models import AuthToken, User
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db


def test_register_returns_user_and_a_working_token(make_client):
    response = make_client().post(
        "/api/v1/auth/register", {"username": "lihua", "password": "s3cret-pass"}, format="json"
    )
    assert response.status_code == 201
    body = response.json()
    assert body["user"]["username"] == "lihua"
    me = make_client(body["token"]).get("/api/v1/me")
    assert me.status_code == 200 and me.json()["username"] == "lihua"


def test_register_twice_is_rejected_and_creates_nothing(make_client):
    client = make_client()
    client.post("/api/v1/auth/register", {"username": "lihua", "password": "s3cret-pass"}, format="json")
    tokens = AuthToken.objects.count()
    response = client.post(
        "/api/v1/auth/register", {"username": "lihua", "password": "other-pass-1"}, format="json"
    )
    assert_error(response, 400, "invalid_request")
    assert User.objects.filter(username="lihua").count() == 1
    assert AuthToken.objects.count() == tokens


def test_register_with_unknown_field_is_400(make_client):
    response = make_client().post(
        "/api/v1/auth/register", {"username": "a", "password": "s3cret-pass", "admin": True}, format="json"
    )
    body = assert_error(response, 400, "invalid_request")
    assert "admin" in body["extra"]["fields"]
    assert not User.objects.exists()


def test_token_login_and_wrong_password(make_client, make_user):
    user, _ = make_user(username="ann")
    ok = make_client().post(
        "/api/v1/auth/token", {"username": "ann", "password": "correct-horse-9"}, format="json"
    )
    assert ok.status_code == 200 and make_client(ok.json()["token"]).get("/api/v1/me").status_code == 200
    tokens = AuthToken.objects.count()
    bad = make_client().post(
        "/api/v1/auth/token", {"username": "ann", "password": "wrong-horse-9"}, format="json"
    )
    assert_error(bad, 401, "not_authenticated")
    assert AuthToken.objects.count() == tokens


def test_guest_gets_an_account_and_token(make_client):
    response = make_client().post("/api/v1/auth/guest")
    assert response.status_code == 201
    assert response.json()["user"]["is_guest"] is True
    assert make_client(response.json()["token"]).get("/api/v1/me").status_code == 200


def test_logout_revokes_only_the_token_used(make_client, make_user):
    user, first = make_user()
    second = (
        make_client()
        .post("/api/v1/auth/token", {"username": user.username, "password": "correct-horse-9"}, format="json")
        .json()["token"]
    )
    assert make_client(first).post("/api/v1/auth/logout").status_code == 204
    assert_error(make_client(first).get("/api/v1/me"), 401, "not_authenticated")
    assert make_client(second).get("/api/v1/me").status_code == 200


def test_missing_and_bad_tokens_are_401_with_the_error_shape(make_client):
    response = make_client().get("/api/v1/me")
    assert_error(response, 401, "not_authenticated")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert_error(make_client("nope").get("/api/v1/me"), 401, "not_authenticated")


def test_banned_user_may_see_himself_and_log_out_but_nothing_else(make_client, make_user):
    _, token = make_user(banned=True)
    client = make_client(token)
    assert client.get("/api/v1/me").status_code == 200 and client.get("/api/v1/me").json()["banned"] is True
    body = assert_error(client.post("/api/v1/tables", {"preset": "weihai"}, format="json"), 403, "banned")
    assert body["extra"] == {"kind": "ban", "expires_at": None}
    assert_error(client.get("/api/v1/ratings/leaderboard?preset=weihai"), 403, "banned")
    assert client.post("/api/v1/auth/logout").status_code == 204
    assert_error(client.get("/api/v1/me"), 401, "not_authenticated")


def test_banned_user_cannot_obtain_a_token(make_client, make_user):
    user, _ = make_user(banned=True)
    response = make_client().post(
        "/api/v1/auth/token", {"username": user.username, "password": "correct-horse-9"}, format="json"
    )
    assert_error(response, 403, "banned")


def test_malformed_json_is_400(make_client):
    response = make_client().post("/api/v1/auth/register", "{not json", content_type="application/json")
    assert_error(response, 400, "invalid_request")


def test_wrong_method_and_unknown_url_have_the_error_shape(make_client, make_user):
    _, token = make_user()
    assert_error(make_client(token).put("/api/v1/me", {}, format="json"), 405, "method_not_allowed")
    assert_error(make_client(token).get("/api/v1/no-such-thing"), 404, "not_found")


def test_auth_endpoints_are_throttled_with_retry_after(make_client, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"auth": "2/min"}}
    client = make_client()
    assert client.post("/api/v1/auth/guest").status_code == 201
    assert client.post("/api/v1/auth/guest").status_code == 201
    users = User.objects.count()
    response = client.post("/api/v1/auth/guest")
    body = assert_error(response, 429, "throttled")
    assert int(response.headers["Retry-After"]) > 0 and body["extra"]["retry_after"] > 0
    assert User.objects.count() == users
