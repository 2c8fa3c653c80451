"""The tournament API (docs/tournaments.md "Lifecycle"): who may do what, and each refusal's clear 4xx."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import Sanction, SanctionKind, Webhook, WebhookMessage
from matchmaking.models import Penalty, PenaltyReason, Seat, TableStatus
from tests.conftest import assert_error
from tests.tournaments.playing import FIELDS, current_tables, tournament_create
from tournaments import services, tasks
from tournaments.models import Entry, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(make_user, make_client):
    _, token = make_user(staff=True)
    return make_client(token)


@pytest.fixture
def players(make_user, make_client):
    def make(count: int) -> list:
        made = []
        for _ in range(count):
            user, token = make_user()
            made.append((user, make_client(token)))
        return made

    return make


def _enter(tournament: dict, players) -> None:
    for _, client in players:
        assert client.post(f"/api/v1/tournaments/{tournament['id']}/join").status_code == 200


def test_only_staff_create_and_start(staff, players):
    ((_, player),) = players(1)
    assert_error(player.post("/api/v1/tournaments", FIELDS, format="json"), 403, "permission_denied")
    tournament = tournament_create(staff)
    assert tournament["status"] == "registering" and tournament["players"] == 0
    assert_error(player.post(f"/api/v1/tournaments/{tournament['id']}/start"), 403, "permission_denied")


@pytest.mark.parametrize(
    "change",
    [
        {"format": "knockout"},
        {"preset": "nope"},
        {"rounds": 0},
        {"max_players": 1},
        {"surprise": 1},
        {"options": {"no_such_option": True}},
    ],
)
def test_bad_fields_are_400(staff, change):
    assert_error(
        staff.post("/api/v1/tournaments", {**FIELDS, **change}, format="json"), 400, "invalid_request"
    )


def test_join_twice_is_one_entry_and_full_started_and_closed_are_409(staff, players):
    tournament = tournament_create(staff, max_players=2)
    url = f"/api/v1/tournaments/{tournament['id']}"
    (first, a), (_, b), (_, c) = players(3)
    assert a.post(f"{url}/join").json()["entered"] is True
    assert a.post(f"{url}/join").status_code == 200
    assert Entry.objects.filter(tournament_id=tournament["id"], user=first).count() == 1
    b.post(f"{url}/join")
    assert_error(c.post(f"{url}/join"), 409, "tournament_full")
    assert staff.post(f"{url}/start").json()["status"] == "running"
    assert_error(c.post(f"{url}/join"), 409, "tournament_started")
    assert_error(staff.post(f"{url}/start"), 409, "tournament_started")
    services.tournament_cancel(tournament_id=tournament["id"])
    assert_error(c.post(f"{url}/join"), 409, "tournament_closed")
    assert_error(a.post(f"{url}/leave"), 409, "tournament_closed")


def test_a_sanctioned_user_is_refused(staff, players):
    tournament = tournament_create(staff)
    ((user, client),) = players(1)
    Sanction.objects.create(user=user, kind=SanctionKind.QUEUE_BAN, reason="test")
    assert_error(client.post(f"/api/v1/tournaments/{tournament['id']}/join"), 403, "banned")


def test_leaving_before_the_start_removes_the_entry(staff, players):
    tournament = tournament_create(staff)
    ((_, client),) = players(1)
    url = f"/api/v1/tournaments/{tournament['id']}"
    client.post(f"{url}/join")
    assert client.post(f"{url}/leave").json()["players"] == 0
    assert_error(client.post(f"{url}/leave"), 403, "permission_denied")


def test_fewer_than_two_players_at_starts_at_cancel_it(staff, players):
    tournament = tournament_create(staff, starts_at=(timezone.now() + timedelta(hours=1)).isoformat())
    _enter(tournament, players(1))
    assert tasks.tournaments_sweep() == 0, "not due yet"
    Tournament.objects.filter(pk=tournament["id"]).update(starts_at=timezone.now() - timedelta(seconds=1))
    tasks.tournaments_sweep()
    detail = staff.get(f"/api/v1/tournaments/{tournament['id']}").json()
    assert detail["status"] == "cancelled" and detail["cancelled_reason"] == "too_few_players"


def test_the_list_filters_by_status_and_unknown_ids_are_404(staff, players):
    registering = tournament_create(staff)
    running = tournament_create(staff, name="running")
    _enter(running, players(2))
    staff.post(f"/api/v1/tournaments/{running['id']}/start")
    listed = staff.get("/api/v1/tournaments", {"status": "running"}).json()["results"]
    assert [row["id"] for row in listed] == [running["id"]]
    assert {row["id"] for row in staff.get("/api/v1/tournaments").json()["results"]} >= {
        registering["id"],
        running["id"],
    }
    assert_error(staff.get("/api/v1/tournaments", {"status": "paused"}), 400, "invalid_request")
    assert_error(staff.get("/api/v1/tournaments/999999"), 404, "not_found")
    assert_error(staff.get(f"/api/v1/tournaments/{running['id']}/rounds/2"), 404, "not_found")
    assert_error(staff.post("/api/v1/tournaments/999999/join"), 404, "not_found")


def test_a_withdrawal_mid_round_leaves_the_seat_to_trustee_then_a_bot_and_is_not_seated_again(staff, players):
    tournament = tournament_create(staff, format="draw", duplicate=False)
    entered = players(6)
    _enter(tournament, entered)
    staff.post(f"/api/v1/tournaments/{tournament['id']}/start")
    (row,) = [row for row in current_tables(tournament["id"]) if entered[0][0].pk in row.seats]
    user, client = entered[0]
    assert client.post(f"/api/v1/tournaments/{tournament['id']}/leave").status_code == 200
    assert not Seat.objects.filter(table_id=row.table_id, user=user).exists()
    assert Penalty.objects.get(table_id=row.table_id, user=user).reason == PenaltyReason.LEFT
    assert Entry.objects.get(tournament_id=tournament["id"], user=user).withdrawn_at is not None
    standings = staff.get(f"/api/v1/tournaments/{tournament['id']}/standings").json()
    assert user.pk not in [line["user"] for line in standings["results"]]
    # The round ends however its tables close; the next round seats the five still in.
    for other in current_tables(tournament["id"]):
        other.table.status = TableStatus.DISSOLVED
        other.table.save(update_fields=["status"])
    tasks.tournaments_sweep()
    seated = {
        user for row in current_tables(tournament["id"]) for user, bot in zip(row.seats, row.bots) if not bot
    }
    assert seated == {u.pk for u, _ in entered[1:]}


def test_two_fouls_send_a_player_off(staff, players):
    tournament = tournament_create(staff, preset="campus")
    entered = players(3)
    _enter(tournament, entered)
    staff.post(f"/api/v1/tournaments/{tournament['id']}/start")
    (row,) = current_tables(tournament["id"])
    fouler = entered[0][0]
    for _ in range(2):
        Penalty.objects.create(
            user=fouler, table=row.table, seat=row.seats.index(fouler.pk), points=0, reason=PenaltyReason.FOUL
        )
    row.table.status = TableStatus.FINISHED
    row.table.save(update_fields=["status"])
    tasks.tournaments_sweep()
    (second,) = current_tables(tournament["id"])
    assert fouler.pk not in second.seats
    assert Entry.objects.get(tournament_id=tournament["id"], user=fouler).sent_off


def test_a_closing_table_sends_its_tournaments_step_and_the_last_one_finishes_it(
    staff, players, monkeypatch, django_capture_on_commit_callbacks
):
    tournament = tournament_create(staff, rounds=1)
    entered = players(2)
    _enter(tournament, entered)
    Webhook.objects.create(
        owner=entered[0][0], url="https://example.com/h", events=["tournament.finished"], secret="whsec_x"
    )
    staff.post(f"/api/v1/tournaments/{tournament['id']}/start")
    sent = []
    monkeypatch.setattr(tasks.current_app, "send_task", lambda name, kwargs: sent.append((name, kwargs)))
    (row,) = current_tables(tournament["id"])
    with django_capture_on_commit_callbacks(execute=True):
        row.table.status = TableStatus.FINISHED
        row.table.save(update_fields=["status"])
    assert sent == [("tournaments.step", {"tournament_id": tournament["id"]})]
    tasks.tournament_step.run(tournament["id"])
    detail = staff.get(f"/api/v1/tournaments/{tournament['id']}").json()
    assert detail["status"] == "finished"
    (message,) = WebhookMessage.objects.filter(event="tournament.finished")
    body = json.loads(message.body)
    assert body["data"]["tournament"] == tournament["id"]
    assert sorted(row["user"] for row in body["data"]["standings"]) == sorted(u.pk for u, _ in entered)


def test_the_export_lists_a_players_entries_and_a_deleted_account_leaves_its_tournaments(
    staff, players, make_user, make_client
):
    registering, running = tournament_create(staff), tournament_create(staff, name="running")
    user, token = make_user()
    client = make_client(token)
    entered = [(user, client), *players(2)]
    _enter(registering, entered[:1])
    _enter(running, entered)
    staff.post(f"/api/v1/tournaments/{running['id']}/start")
    export = client.get("/api/v1/me/export").json()["tournaments"]
    assert [row["tournament"] for row in export] == [registering["id"], running["id"]]
    assert export[1]["withdrawn_at"] is None and export[1]["rank"] is None
    deleted = client.delete("/api/v1/me", {"password": "correct-horse-9"}, format="json")
    assert deleted.status_code == 204, deleted.content
    assert not Entry.objects.filter(tournament_id=registering["id"], user=user).exists()
    assert Entry.objects.get(tournament_id=running["id"], user=user).withdrawn_at is not None


def test_without_bots_too_few_players_for_a_table_cancel_the_tournament(staff, players):
    tournament = tournament_create(staff, bots_fill=False)
    _enter(tournament, players(3))
    detail = staff.post(f"/api/v1/tournaments/{tournament['id']}/start").json()
    assert detail["status"] == "cancelled" and detail["cancelled_reason"] == "too_few_players"
