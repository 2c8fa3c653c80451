"""`DELETE me` (docs/client-guide.md "Your data"): the player can no longer sign in, his personal
data is erased, his name freed; the deals he played keep their records under `deleted-<id>`, his
running seat plays on in 托管, his waiting ticket is cancelled; sanctions, reports and the audit log
survive."""

import random
from datetime import timedelta

import pytest
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model, get_refresh_token_model

from accounts.models import (
    AuthToken,
    FeedEvent,
    ModerationAction,
    Rating,
    Sanction,
    SanctionKind,
    User,
)
from accounts.webhooks.models import Webhook
from games.models import Game, GameStatus
from matchmaking.models import Report, Seat, Ticket, TicketStatus
from tests.api.playing import play_deal
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-9"  # make_user's


def _delete(client, password: str | None = PASSWORD):
    body = {} if password is None else {"password": password}
    return client.delete("/api/v1/me", body, format="json")


def test_a_deleted_player_cannot_sign_in_and_his_name_is_free(make_client, make_user):
    user, token = make_user(username="lihua")
    personal = make_client(token).post(
        "/api/v1/auth/tokens", {"name": "c", "scopes": ["read"]}, format="json"
    )
    Webhook.objects.create(owner=user, url="https://example.com/hook", events=["game.over"], secret="whsec_x")
    Rating.objects.create(user=user, preset="weihai", mu=30, sigma=4, ordinal=18.0)

    assert _delete(make_client(token)).status_code == 204

    assert_error(make_client(token).get("/api/v1/me"), 401, "not_authenticated")
    assert_error(make_client(personal.json()["token"]).get("/api/v1/me"), 401, "not_authenticated")
    login = {"username": "lihua", "password": PASSWORD}
    assert_error(make_client().post("/api/v1/auth/token", login, format="json"), 401, "not_authenticated")
    row = User.objects.get(pk=user.pk)
    assert row.username == f"deleted-{user.pk}" and not row.is_active and not row.has_usable_password()
    assert row.email == "" and row.last_login is None
    assert not AuthToken.objects.filter(user=user).exists()
    assert not Webhook.objects.filter(owner=user).exists() and not Rating.objects.filter(user=user).exists()
    # The name is free for someone else; the tombstone's is nobody's to take.
    again = make_client().post(
        "/api/v1/auth/register", {"username": "LiHua", "password": "s3cret-pass"}, format="json"
    )
    assert again.status_code == 201 and again.json()["user"]["id"] != user.pk
    taken = make_client().post(
        "/api/v1/auth/register",
        {"username": f"deleted-{user.pk + 100}", "password": "s3cret-pass"},
        format="json",
    )
    assert assert_error(taken, 400, "invalid_request")["extra"] == {"fields": {"username": ["too similar"]}}


def test_deletion_is_audited_and_sanctions_and_reports_survive(make_client, make_user):
    user, token = make_user()
    other, other_token = make_user()
    staff, _ = make_user(staff=True)
    sanction = Sanction.objects.create(
        user=user, kind=SanctionKind.QUEUE_BAN, reason="stalling", moderator=staff
    )
    filed = make_client(token).post("/api/v1/reports", {"user": other.pk, "reason": "abuse"}, format="json")
    assert filed.status_code == 201, filed.json()
    received = make_client(other_token).post(
        "/api/v1/reports", {"user": user.pk, "reason": "abuse"}, format="json"
    )

    assert _delete(make_client(token)).status_code == 204

    assert Sanction.objects.filter(pk=sanction.pk, user_id=user.pk).exists()
    assert Report.objects.filter(pk=filed.json()["id"]).exists()
    assert Report.objects.filter(pk=received.json()["id"], user_id=user.pk).exists()
    entry = ModerationAction.objects.get(action="account_delete")
    assert (entry.moderator_id, entry.target_type, entry.target_id, entry.subject_user_id) == (
        user.pk,
        "user",
        user.pk,
        user.pk,
    )
    assert entry.details["tombstone"] == f"deleted-{user.pk}"


def test_a_banned_player_may_delete_his_account_and_the_ban_is_kept(make_client, make_user):
    user, token = make_user(banned=True)
    assert _delete(make_client(token)).status_code == 204
    assert Sanction.objects.filter(user_id=user.pk, kind=SanctionKind.BAN).exists()
    assert not User.objects.get(pk=user.pk).is_active


def test_the_running_seat_plays_on_in_trustee_and_the_finished_deal_keeps_its_record(make_client, make_table):
    setup = make_table(deals=3)
    finished = play_deal(setup["clients"], setup["game"], random.Random(5))
    assert finished.status == GameStatus.OVER
    running = Game.objects.get(table_id=setup["table"], status=GameStatus.RUNNING)
    user, client = setup["users"][2], setup["clients"][2]
    old_name = user.username

    assert _delete(client).status_code == 204

    tombstone = f"deleted-{user.pk}"
    others = setup["clients"][0]
    # The finished deal: same seats and scores, the seat named by the tombstone.
    final = others.get(f"/api/v1/games/{finished.pk}/final").json()
    assert final["players"][2] == tombstone and old_name not in str(final)
    assert Game.objects.get(pk=finished.pk).seat_user_ids[2] == user.pk
    # The running deal goes on, his seat in 托管, the table still playing.
    running.refresh_from_db()
    assert running.status == GameStatus.RUNNING and running.trustee[2] is True and running.left[2] is True
    assert not Seat.objects.filter(user_id=user.pk).exists()
    table = others.get(f"/api/v1/tables/{setup['table']}").json()
    assert table["status"] == "playing"
    events = others.get(f"/api/v1/tables/{setup['table']}/events").json()["events"]
    assert old_name not in str(events) and tombstone in str(events)
    assert not FeedEvent.objects.filter(user_id=user.pk).exists()


def test_a_waiting_ticket_is_cancelled(make_client, make_user):
    user, token = make_user()
    ticket = make_client(token).post(
        "/api/v1/matchmaking/tickets", {"preset": "weihai", "bots": False}, format="json"
    )
    assert ticket.status_code == 201, ticket.json()
    assert _delete(make_client(token)).status_code == 204
    assert Ticket.objects.get(pk=ticket.json()["id"]).status == TicketStatus.CANCELLED


def test_a_guest_deletes_his_account_with_his_token_alone(make_client):
    guest = make_client().post("/api/v1/auth/guest").json()
    assert _delete(make_client(guest["token"]), password=None).status_code == 204
    assert not User.objects.get(pk=guest["user"]["id"]).is_active
    assert_error(make_client(guest["token"]).get("/api/v1/me"), 401, "not_authenticated")


@pytest.mark.parametrize(
    ("password", "field_error"), [(None, "required"), ("wrong-horse-9", "wrong password")]
)
def test_without_the_right_password_nothing_is_deleted(make_client, make_user, password, field_error):
    user, token = make_user()
    body = assert_error(_delete(make_client(token), password=password), 400, "invalid_request")
    assert body["extra"] == {"fields": {"password": [field_error]}}
    assert User.objects.get(pk=user.pk).username == user.username
    assert make_client(token).get("/api/v1/me").status_code == 200
    assert not ModerationAction.objects.exists()


def test_wrong_passwords_count_toward_the_lock_out(make_client, make_user, settings):
    settings.LOGIN_FAILURES_MAX = 2
    user, token = make_user()
    client = make_client(token)
    for _ in range(2):
        assert_error(_delete(client, password="wrong-horse-9"), 400, "invalid_request")
    assert_error(_delete(client), 429, "throttled")
    assert User.objects.get(pk=user.pk).is_active


def test_a_personal_token_cannot_delete_the_account(make_client, make_user):
    user, token = make_user()
    personal = (
        make_client(token)
        .post("/api/v1/auth/tokens", {"name": "club", "scopes": ["tokens"]}, format="json")
        .json()["token"]
    )
    assert_error(_delete(make_client(personal)), 403, "permission_denied")
    assert User.objects.get(pk=user.pk).is_active


def test_an_integrators_bots_are_deleted_with_him(make_client, make_user):
    owner, token = make_user()
    staff, staff_token = make_user(staff=True)
    made = make_client(staff_token).post(
        "/api/v1/bots", {"username": "owners-bot", "owner": owner.pk}, format="json"
    )
    assert made.status_code == 201, made.json()
    assert _delete(make_client(token)).status_code == 204
    bot = User.objects.get(pk=made.json()["user"]["id"])
    assert not bot.is_active and bot.username == f"deleted-{bot.pk}"
    assert_error(make_client(made.json()["token"]).get("/api/v1/me"), 401, "not_authenticated")


def test_an_apps_oauth_token_stops_working_and_his_own_apps_are_gone(make_client, make_user):
    user, token = make_user()
    developer, _ = make_user()
    app = get_application_model().objects.create(
        name="club app",
        user=developer,
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:8765/cb",
    )
    get_access_token_model().objects.create(
        user=user,
        application=app,
        token="oauth-of-the-player",
        scope="read",
        expires=timezone.now() + timedelta(hours=1),
    )
    refresh = get_refresh_token_model().objects.create(
        user=user, application=app, token="refresh-of-the-player"
    )
    his_app = get_application_model().objects.create(
        name="his app",
        user=user,
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:8765/cb",
    )
    assert make_client("oauth-of-the-player").get("/api/v1/me").status_code == 200

    assert _delete(make_client(token)).status_code == 204

    assert_error(make_client("oauth-of-the-player").get("/api/v1/me"), 401, "not_authenticated")
    assert not get_refresh_token_model().objects.filter(pk=refresh.pk).exists()
    assert not get_application_model().objects.filter(pk=his_app.pk).exists()
    assert get_application_model().objects.filter(pk=app.pk).exists()  # the developer's


def test_a_deleted_account_is_not_on_the_leaderboard_even_if_rated_later(make_client, make_user):
    user, token = make_user()
    _, other_token = make_user()
    assert _delete(make_client(token)).status_code == 204
    # A deal he was in when he deleted the account is rated after it ends.
    Rating.objects.create(user=user, preset="weihai", mu=40, sigma=2, ordinal=34.0)
    board = make_client(other_token).get("/api/v1/ratings/leaderboard?preset=weihai").json()
    assert [entry["user"] for entry in board["entries"]] == []
