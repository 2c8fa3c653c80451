"""Every session listed and one revoked; the password changed (docs/client-guide.md "Accounts")."""

import pytest

from accounts.models import AuthToken, User
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-9"  # make_user's


def _sign_in(make_client, user, device: str | None = None) -> str:
    body = {"username": user.username, "password": PASSWORD}
    if device is not None:
        body["device"] = device
    response = make_client().post("/api/v1/auth/token", body, format="json")
    assert response.status_code == 200, response.json()
    return response.json()["token"]


def test_the_list_shows_each_signed_in_device_and_which_one_is_asking(make_client, make_user):
    user, _ = make_user()
    phone = _sign_in(make_client, user, device="Li Hua's phone")
    tablet = _sign_in(make_client, user, device="tablet")
    personal = make_client(phone).post(
        "/api/v1/auth/tokens", {"name": "club", "scopes": ["read"]}, format="json"
    )

    body = make_client(tablet).get("/api/v1/auth/tokens").json()

    # The personal tokens answer as before, with `current` besides.
    assert [t["id"] for t in body["tokens"]] == [personal.json()["id"]]
    assert body["tokens"][0]["current"] is False
    sessions = {s["device"]: s for s in body["sessions"]}
    assert set(sessions) == {"Li Hua's phone", "tablet", ""}  # make_user's own token has no name
    assert sessions["tablet"]["current"] is True and sessions["Li Hua's phone"]["current"] is False
    assert set(sessions["tablet"]) == {
        "id",
        "device",
        "created_at",
        "last_used_at",
        "expires_at",
        "current",
    }
    assert sessions["tablet"]["last_used_at"] == sessions["tablet"]["created_at"]
    assert phone not in str(body) and AuthToken.hash_key(phone) not in str(body)


def test_a_lost_phones_session_is_revoked_and_the_others_stay(make_client, make_user):
    user, _ = make_user()
    phone = _sign_in(make_client, user, device="lost phone")
    tablet = _sign_in(make_client, user, device="tablet")
    lost = next(
        s
        for s in make_client(tablet).get("/api/v1/auth/tokens").json()["sessions"]
        if s["device"] == "lost phone"
    )
    assert make_client(tablet).delete(f"/api/v1/auth/tokens/{lost['id']}").status_code == 204
    assert_error(make_client(phone).get("/api/v1/me"), 401, "not_authenticated")
    assert make_client(tablet).get("/api/v1/me").status_code == 200
    assert "lost phone" not in {
        s["device"] for s in make_client(tablet).get("/api/v1/auth/tokens").json()["sessions"]
    }


def test_another_users_session_is_not_found_and_stays(make_client, make_user):
    _, mine = make_user()
    other, other_token = make_user()
    theirs = AuthToken.objects.get(key_hash=AuthToken.hash_key(other_token))
    assert_error(make_client(mine).delete(f"/api/v1/auth/tokens/{theirs.pk}"), 404, "not_found")
    assert make_client(other_token).get("/api/v1/me").status_code == 200


def test_a_device_name_too_long_is_refused(make_client, make_user):
    user, _ = make_user()
    body = {"username": user.username, "password": PASSWORD, "device": "x" * 101}
    assert (
        "device"
        in assert_error(
            make_client().post("/api/v1/auth/token", body, format="json"), 400, "invalid_request"
        )["extra"]["fields"]
    )
    assert AuthToken.objects.filter(user=user).count() == 1


def test_changing_the_password_signs_out_the_other_devices_and_keeps_this_one(make_client, make_user):
    user, _ = make_user()
    here = _sign_in(make_client, user, device="here")
    elsewhere = _sign_in(make_client, user, device="elsewhere")
    personal = make_client(here).post(
        "/api/v1/auth/tokens", {"name": "club", "scopes": ["read"]}, format="json"
    )

    response = make_client(here).post(
        "/api/v1/me/password", {"old_password": PASSWORD, "new_password": "n3w-s3cret-pass"}, format="json"
    )

    assert response.status_code == 200, response.json()
    assert response.json() == {"sessions_revoked": 2}  # elsewhere and make_user's own token
    assert make_client(here).get("/api/v1/me").status_code == 200
    assert_error(make_client(elsewhere).get("/api/v1/me"), 401, "not_authenticated")
    # Personal access tokens are the player's grants to integrations: they stay.
    assert make_client(personal.json()["token"]).get("/api/v1/me").status_code == 200
    old = {"username": user.username, "password": PASSWORD}
    assert_error(make_client().post("/api/v1/auth/token", old, format="json"), 401, "not_authenticated")
    new = {"username": user.username, "password": "n3w-s3cret-pass"}
    assert make_client().post("/api/v1/auth/token", new, format="json").status_code == 200


def test_a_wrong_old_password_changes_nothing_and_counts_toward_the_lock_out(
    make_client, make_user, settings
):
    settings.LOGIN_FAILURES_MAX = 3
    user, token = make_user()
    client = make_client(token)
    wrong = {"old_password": "wrong-horse-9", "new_password": "n3w-s3cret-pass"}
    for _ in range(3):
        body = assert_error(client.post("/api/v1/me/password", wrong, format="json"), 400, "invalid_request")
        assert body["extra"] == {"fields": {"old_password": ["wrong password"]}}
    # Locked: the right password is refused unchecked here, and at the sign-in.
    right = {"old_password": PASSWORD, "new_password": "n3w-s3cret-pass"}
    assert_error(client.post("/api/v1/me/password", right, format="json"), 429, "throttled")
    login = {"username": user.username, "password": PASSWORD}
    assert_error(make_client().post("/api/v1/auth/token", login, format="json"), 429, "throttled")
    assert User.objects.get(pk=user.pk).check_password(PASSWORD)
    assert client.get("/api/v1/me").status_code == 200


def test_sign_in_failures_lock_the_password_change_too(make_client, make_user, settings):
    settings.LOGIN_FAILURES_MAX = 2
    user, token = make_user()
    for _ in range(2):
        bad = {"username": user.username, "password": "wrong-horse-9"}
        assert_error(make_client().post("/api/v1/auth/token", bad, format="json"), 401, "not_authenticated")
    right = {"old_password": PASSWORD, "new_password": "n3w-s3cret-pass"}
    assert_error(make_client(token).post("/api/v1/me/password", right, format="json"), 429, "throttled")
    assert User.objects.get(pk=user.pk).check_password(PASSWORD)


def test_a_weak_new_password_is_refused_by_the_password_rules(make_client, make_user):
    user, token = make_user()
    response = make_client(token).post(
        "/api/v1/me/password", {"old_password": PASSWORD, "new_password": "short"}, format="json"
    )
    assert "new_password" in assert_error(response, 400, "invalid_request")["extra"]["fields"]
    assert User.objects.get(pk=user.pk).check_password(PASSWORD)


def test_a_personal_token_cannot_change_the_password(make_client, make_user):
    user, token = make_user()
    personal = (
        make_client(token)
        .post("/api/v1/auth/tokens", {"name": "club", "scopes": ["tokens"]}, format="json")
        .json()["token"]
    )
    response = make_client(personal).post(
        "/api/v1/me/password", {"old_password": PASSWORD, "new_password": "n3w-s3cret-pass"}, format="json"
    )
    assert_error(response, 403, "permission_denied")
    assert User.objects.get(pk=user.pk).check_password(PASSWORD)
    assert make_client(token).get("/api/v1/me").status_code == 200


def test_a_guest_has_no_password_to_change(make_client):
    guest = make_client().post("/api/v1/auth/guest").json()
    response = make_client(guest["token"]).post(
        "/api/v1/me/password", {"old_password": "", "new_password": "n3w-s3cret-pass"}, format="json"
    )
    assert_error(response, 400, "invalid_request")
    assert not User.objects.get(pk=guest["user"]["id"]).has_usable_password()


def test_the_password_change_is_limited_per_address(make_client, make_user, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "auth": "2/min"},
    }
    _, token = make_user()
    client = make_client(token)
    wrong = {"old_password": "wrong-horse-9", "new_password": "n3w-s3cret-pass"}
    assert [client.post("/api/v1/me/password", wrong, format="json").status_code for _ in range(3)] == [
        400,
        400,
        429,
    ]
