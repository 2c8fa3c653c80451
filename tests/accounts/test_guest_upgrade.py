"""A guest becomes a registered player in place (docs/client-guide.md "Accounts"): `POST auth/upgrade`
with the guest's login token keeps the user id and everything attached to it; the guest token is
replaced. `POST auth/register` with a guest's token no longer makes a second user."""

import pytest

from accounts.models import AuthToken, Rating, TokenKind, User
from matchmaking.models import Ticket, TicketStatus
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db

UPGRADE = "/api/v1/auth/upgrade"


def _guest(make_client, device: str | None = None) -> tuple[int, str]:
    body = {"device": device} if device is not None else None
    response = make_client().post("/api/v1/auth/guest", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["user"]["id"], response.json()["token"]


def test_an_upgraded_guest_keeps_his_id_ratings_seats_and_tickets(make_client, make_table):
    setup = make_table()
    guest_id, guest_token = _guest(make_client)
    # A guest who played: a rating, a waiting ticket.
    Rating.objects.create(user_id=guest_id, preset="weihai", mu=30, sigma=4, ordinal=18.0, deals=3)
    guest = make_client(guest_token)
    ticket = guest.post("/api/v1/matchmaking/tickets", {"preset": "weihai", "bots": False}, format="json")
    assert ticket.status_code == 201, ticket.json()

    response = guest.post(UPGRADE, {"username": "lihua", "password": "s3cret-pass"}, format="json")

    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["user"]["id"] == guest_id
    assert body["user"]["username"] == "lihua" and body["user"]["is_guest"] is False
    assert User.objects.count() == 1 + 6  # the guest, the table's five players and its staff creator
    assert Rating.objects.get(user_id=guest_id).deals == 3
    assert Ticket.objects.get(pk=ticket.json()["id"]).status == TicketStatus.WAITING
    new = make_client(body["token"])
    assert new.get("/api/v1/me").json()["id"] == guest_id
    assert [t["id"] for t in new.get("/api/v1/me/active").json()["tickets"]] == [ticket.json()["id"]]
    # The guest token stops working; the password signs in to the same user.
    assert_error(guest.get("/api/v1/me"), 401, "not_authenticated")
    signed_in = make_client().post(
        "/api/v1/auth/token", {"username": "lihua", "password": "s3cret-pass"}, format="json"
    )
    assert make_client(signed_in.json()["token"]).get("/api/v1/me").json()["id"] == guest_id
    assert setup["game"]  # the table's players are untouched
    assert all(make_client(t).get("/api/v1/me").status_code == 200 for t in setup["tokens"])


def test_the_new_token_keeps_the_guest_tokens_device_name(make_client):
    guest_id, guest_token = _guest(make_client, device="Li Hua's phone")
    body = (
        make_client(guest_token)
        .post(UPGRADE, {"username": "lihua", "password": "s3cret-pass"}, format="json")
        .json()
    )
    token = AuthToken.objects.get(key_hash=AuthToken.hash_key(body["token"]))
    assert token.device == "Li Hua's phone" and token.user_id == guest_id


def test_register_with_a_guests_token_makes_no_second_user(make_client):
    guest_id, guest_token = _guest(make_client)
    users = User.objects.count()
    response = make_client(guest_token).post(
        "/api/v1/auth/register", {"username": "lihua", "password": "s3cret-pass"}, format="json"
    )
    body = assert_error(response, 400, "invalid_request")
    assert body["extra"] == {"upgrade": "/api/v1/auth/upgrade"}
    assert User.objects.count() == users
    assert User.objects.get(pk=guest_id).is_guest
    assert make_client(guest_token).get("/api/v1/me").status_code == 200


@pytest.mark.parametrize(
    ("username", "field_error"),
    [("guest-abc", "reserved"), ("Taken", "taken"), ("tаken", "too similar")],  # Cyrillic а
)
def test_the_registration_name_rules_apply_and_a_refusal_changes_nothing(
    make_client, make_user, username, field_error
):
    make_user(username="taken")
    guest_id, guest_token = _guest(make_client)
    guest = make_client(guest_token)
    response = guest.post(UPGRADE, {"username": username, "password": "s3cret-pass"}, format="json")
    body = assert_error(response, 400, "invalid_request")
    assert body["extra"] == {"fields": {"username": [field_error]}}
    user = User.objects.get(pk=guest_id)
    assert user.is_guest and user.username.startswith("guest-") and not user.has_usable_password()
    assert guest.get("/api/v1/me").status_code == 200


def test_a_weak_password_is_refused_and_changes_nothing(make_client):
    guest_id, guest_token = _guest(make_client)
    response = make_client(guest_token).post(
        UPGRADE, {"username": "lihua", "password": "short"}, format="json"
    )
    assert "password" in assert_error(response, 400, "invalid_request")["extra"]["fields"]
    assert User.objects.get(pk=guest_id).is_guest


def test_a_registered_player_cannot_upgrade(make_client, make_user):
    user, token = make_user()
    response = make_client(token).post(
        UPGRADE, {"username": "other", "password": "s3cret-pass"}, format="json"
    )
    assert_error(response, 400, "invalid_request")
    assert User.objects.get(pk=user.pk).username == user.username


def test_upgrading_twice_with_the_same_token_is_refused(make_client):
    _, guest_token = _guest(make_client)
    guest = make_client(guest_token)
    assert (
        guest.post(UPGRADE, {"username": "lihua", "password": "s3cret-pass"}, format="json").status_code
        == 200
    )
    response = guest.post(UPGRADE, {"username": "lihua2", "password": "s3cret-pass"}, format="json")
    assert_error(response, 401, "not_authenticated")
    assert not User.objects.filter(username="lihua2").exists()


def test_only_a_login_token_upgrades(make_client):
    guest_id, guest_token = _guest(make_client)
    personal = make_client(guest_token).post(
        "/api/v1/auth/tokens", {"name": "bot", "scopes": ["read", "tokens"]}, format="json"
    )
    assert personal.status_code == 201, personal.json()
    response = make_client(personal.json()["token"]).post(
        UPGRADE, {"username": "lihua", "password": "s3cret-pass"}, format="json"
    )
    assert_error(response, 403, "permission_denied")
    assert User.objects.get(pk=guest_id).is_guest
    assert AuthToken.objects.filter(user_id=guest_id, kind=TokenKind.LOGIN, revoked_at=None).count() == 1


def test_upgrade_without_a_token_is_401(make_client):
    response = make_client().post(UPGRADE, {"username": "lihua", "password": "s3cret-pass"}, format="json")
    assert_error(response, 401, "not_authenticated")
    assert not User.objects.exists()
