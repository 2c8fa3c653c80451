"""docs/moderation.md sanctions: imposing, enforcement in one place, expiry by time alone, revoking, and a
ban's effect on running deals."""

from datetime import UTC, datetime, timedelta

import pytest

from accounts.models import ModerationAction, Sanction
from games.models import Game
from matchmaking.models import Report
from tests.conftest import assert_error
from tests.moderation.helpers import Clock, make_moderator

pytestmark = pytest.mark.django_db


def _ban(moderator, user_id, **fields):
    payload = {"user": user_id, "kind": "ban", "reason": "cheating, report 1", **fields}
    return moderator.post("/api/v1/moderation/sanctions", payload, format="json")


def test_moderator_bans_a_player_and_every_request_but_three_is_refused(make_user, make_client):
    mod_user, moderator = make_moderator(make_user, make_client)
    target, token = make_user()
    player = make_client(token)
    response = _ban(moderator, target.pk, expires_at="2099-01-01T00:00:00Z")
    assert response.status_code == 201
    sanction = response.json()
    assert (
        sanction["user"] == target.pk and sanction["kind"] == "ban" and sanction["moderator"] == mod_user.pk
    )
    assert sanction["expires_at"] == "2099-01-01T00:00:00Z" and sanction["revoked_at"] is None
    for method, url in [
        ("post", "/api/v1/tables"),
        ("get", "/api/v1/ratings/leaderboard?preset=weihai"),
        ("get", f"/api/v1/users/{target.pk}/history"),
        ("post", "/api/v1/reports"),
    ]:
        body = assert_error(getattr(player, method)(url, {}, format="json"), 403, "banned")
        assert body["extra"] == {"kind": "ban", "expires_at": "2099-01-01T00:00:00Z"}
    assert player.get("/api/v1/me").json()["banned"] is True
    restrictions = player.get("/api/v1/me/restrictions")
    assert restrictions.status_code == 200
    assert [s["id"] for s in restrictions.json()["sanctions"]] == [sanction["id"]]
    assert player.post("/api/v1/auth/logout").status_code == 204


def test_a_banned_player_may_sign_out_everywhere(make_user, make_client):
    _, moderator = make_moderator(make_user, make_client)
    target, token = make_user()
    _ban(moderator, target.pk)
    assert make_client(token).post("/api/v1/auth/logout-all").status_code == 204
    assert_error(make_client(token).get("/api/v1/me"), 401, "not_authenticated")


def test_a_ban_ends_exactly_at_expires_at_without_any_job(make_user, make_client, monkeypatch):
    clock = Clock(monkeypatch, datetime(2026, 12, 1, 3, 0, tzinfo=UTC))
    _, moderator = make_moderator(make_user, make_client)
    target, token = make_user()
    end = datetime(2026, 12, 8, 3, 0, tzinfo=UTC)
    assert _ban(moderator, target.pk, expires_at="2026-12-08T03:00:00Z").status_code == 201
    player = make_client(token)
    clock.set(end - timedelta(microseconds=1))
    assert_error(player.get("/api/v1/ratings/leaderboard?preset=weihai"), 403, "banned")
    assert player.get("/api/v1/me/restrictions").json()["sanctions"] != []
    clock.set(end)
    assert player.get("/api/v1/ratings/leaderboard?preset=weihai").status_code == 200
    assert player.get("/api/v1/me/restrictions").json() == {"sanctions": []}
    assert player.get("/api/v1/me").json()["banned"] is False


def test_revoking_lifts_the_ban_at_once_and_both_are_audited(make_user, make_client):
    mod_user, moderator = make_moderator(make_user, make_client)
    target, token = make_user()
    sanction_id = _ban(moderator, target.pk).json()["id"]
    assert_error(
        make_client(token).post("/api/v1/tables", {"preset": "weihai"}, format="json"), 403, "banned"
    )
    revoked = moderator.post(
        f"/api/v1/moderation/sanctions/{sanction_id}/revoke", {"note": "appeal ok"}, format="json"
    )
    assert revoked.status_code == 200 and revoked.json()["revoked_at"] is not None
    assert make_client(token).post("/api/v1/tables", {"preset": "weihai"}, format="json").status_code == 201
    entries = list(ModerationAction.objects.order_by("id").values_list("action", "subject_user_id", "source"))
    assert entries == [("sanction", target.pk, "api"), ("revoke", target.pk, "api")]
    again = moderator.post(f"/api/v1/moderation/sanctions/{sanction_id}/revoke", {"note": "x"}, format="json")
    assert_error(again, 400, "invalid_request")
    assert ModerationAction.objects.count() == 2


def test_queue_ban_refuses_joining_but_not_playing_otherwise(make_user, make_client):
    _, moderator = make_moderator(make_user, make_client)
    target, token = make_user()
    player = make_client(token)
    response = moderator.post(
        "/api/v1/moderation/sanctions",
        {"user": target.pk, "kind": "queue_ban", "reason": "left ten deals"},
        format="json",
    )
    assert response.status_code == 201
    table = player.post("/api/v1/tables", {"preset": "weihai"}, format="json")
    assert table.status_code == 201
    body = assert_error(
        player.post(f"/api/v1/tables/{table.json()['id']}/join", {}, format="json"), 403, "banned"
    )
    assert body["extra"]["kind"] == "queue_ban"
    assert player.get("/api/v1/me").json()["banned"] is False
    assert [s["kind"] for s in player.get("/api/v1/me/restrictions").json()["sanctions"]] == ["queue_ban"]
    # His feed told him at once (docs/matchmaking.md `sanction {kind, expires_at}`).
    feed = player.get("/api/v1/me/events?after=0").json()["events"]
    assert [(e["type"], e["kind"], e["expires_at"]) for e in feed] == [("sanction", "queue_ban", None)]


def test_a_banned_seat_goes_on_locked_trustee_and_the_deal_goes_on(make_table, make_user, make_client):
    setup = make_table()
    _, moderator = make_moderator(make_user, make_client)
    view = setup["clients"][0].get(f"/api/v1/games/{setup['game']}").json()
    prompted = view["to_act"] or view["window"]["asked"]
    seat = prompted[0]
    before = Game.objects.get(pk=setup["game"])
    assert _ban(moderator, setup["users"][seat].pk).status_code == 201
    game = Game.objects.get(pk=setup["game"])
    assert game.trustee[seat] is True and game.trustee_entries[seat] > 3
    # The seat was prompted: its trustee acted at once, the deal did not wait for its deadline.
    assert game.version > before.version
    after = setup["clients"][(seat + 1) % 5].get(f"/api/v1/games/{setup['game']}").json()
    assert seat not in (after["to_act"] or (after["window"] or {}).get("asked") or [])
    # Revoking the ban does not hand the seat back in the middle of the deal (locked trustee).
    sanction = Sanction.objects.get()
    moderator.post(f"/api/v1/moderation/sanctions/{sanction.pk}/revoke", {"note": "mistake"}, format="json")
    response = setup["clients"][seat].post(
        f"/api/v1/games/{setup['game']}/trustee", {"on": False}, format="json"
    )
    assert_error(response, 409, "trustee_locked")


def test_a_sanction_naming_a_report_marks_it_actioned(make_user, make_client):
    _, moderator = make_moderator(make_user, make_client)
    target, _ = make_user()
    _, reporter_token = make_user()
    report = (
        make_client(reporter_token)
        .post("/api/v1/reports", {"user": target.pk, "reason": "abuse"}, format="json")
        .json()
    )
    assert _ban(moderator, target.pk, report=report["id"]).status_code == 201
    row = Report.objects.get(pk=report["id"])
    assert row.status == "actioned" and row.handled_by_id is not None
    assert ModerationAction.objects.get().details["report"] == report["id"]


@pytest.mark.parametrize(
    ("fields", "status", "code"),
    [
        ({"expires_at": "2001-01-01T00:00:00Z"}, 400, "invalid_request"),
        ({"kind": "shadow_ban"}, 400, "invalid_request"),
        ({"reason": ""}, 400, "invalid_request"),
        ({"user": 999_999}, 404, "not_found"),
        ({"report": 999_999}, 404, "not_found"),
        ({"color": "red"}, 400, "invalid_request"),
    ],
)
def test_bad_sanctions_are_refused_and_change_nothing(make_user, make_client, fields, status, code):
    _, moderator = make_moderator(make_user, make_client)
    target, _ = make_user()
    assert_error(_ban(moderator, target.pk, **fields), status, code)
    assert not Sanction.objects.exists() and not ModerationAction.objects.exists()


def test_a_moderator_cannot_ban_himself(make_user, make_client):
    mod_user, moderator = make_moderator(make_user, make_client)
    assert_error(_ban(moderator, mod_user.pk), 400, "invalid_request")
    assert not Sanction.objects.exists()


def test_players_and_staff_without_the_right_cannot_sanction(make_user, make_client):
    target, _ = make_user()
    _, player_token = make_user()
    _, staff_token = make_user(staff=True)
    for token in (player_token, staff_token):
        assert_error(_ban(make_client(token), target.pk), 403, "permission_denied")
    assert_error(_ban(make_client(), target.pk), 401, "not_authenticated")
    assert not Sanction.objects.exists()
