"""docs/rules.md §3.5 (campus): fouls are moderation actions; the second one removes the player."""

import pytest

from accounts.models import ModerationAction
from matchmaking.models import Penalty, Seat, Table
from tests.conftest import assert_error
from tests.moderation.helpers import make_moderator

pytestmark = pytest.mark.django_db


def _foul(moderator, table_id, seat, reason="talking during play"):
    return moderator.post(
        f"/api/v1/moderation/tables/{table_id}/seats/{seat}/foul", {"reason": reason}, format="json"
    )


def test_the_second_foul_removes_the_player_with_the_removal_penalty(make_table, make_user, make_client):
    setup = make_table(preset="campus")
    _, moderator = make_moderator(make_user, make_client)
    player = setup["users"][1]
    first = _foul(moderator, setup["table"], 1)
    assert first.status_code == 200 and first.json() == {"user": player.pk, "fouls": 1, "removed": False}
    assert Seat.objects.filter(table_id=setup["table"], seat=1, user=player).exists()
    assert Table.objects.get(pk=setup["table"]).scores[1] == 0
    second = _foul(moderator, setup["table"], 1, reason="peeking")
    assert second.json() == {"user": player.pk, "fouls": 2, "removed": True}
    assert not Seat.objects.filter(table_id=setup["table"], user=player).exists()
    assert Table.objects.get(pk=setup["table"]).scores[1] == -40
    reasons = list(Penalty.objects.filter(user=player).order_by("id").values_list("reason", "points"))
    assert reasons == [("foul", 0), ("foul", 0), ("removed", 40)]
    actions = list(ModerationAction.objects.order_by("id").values_list("action", "subject_user_id"))
    assert actions == [("foul", player.pk), ("foul", player.pk), ("remove_player", player.pk)]
    history = setup["clients"][1].get(f"/api/v1/users/{player.pk}/history").json()["penalties"]
    assert [p["reason"] for p in history].count("foul") == 2


def test_fouls_are_a_campus_rule_and_need_a_seated_player(make_table, make_user, make_client):
    setup = make_table(preset="weihai")
    _, moderator = make_moderator(make_user, make_client)
    assert_error(_foul(moderator, setup["table"], 1), 400, "invalid_request")
    campus = make_table(preset="campus")
    moderator.post(f"/api/v1/tables/{campus['table']}/seats/4/remove", format="json")
    assert_error(_foul(moderator, campus["table"], 4), 404, "not_found")
    assert_error(_foul(moderator, 999_999, 0), 404, "not_found")
    assert_error(_foul(moderator, campus["table"], 0, reason=""), 400, "invalid_request")
    assert not Penalty.objects.filter(reason="foul").exists()
    assert not ModerationAction.objects.filter(action="foul").exists()


def test_players_cannot_record_fouls(make_table):
    setup = make_table(preset="campus")
    assert_error(_foul(setup["clients"][0], setup["table"], 1), 403, "permission_denied")
    assert not Penalty.objects.exists()


def test_the_admin_records_fouls_with_a_reason(make_table, make_user, make_client, client):
    setup = make_table(preset="campus")
    user, _ = make_moderator(make_user, make_client)
    client.force_login(user)
    row = Seat.objects.get(table_id=setup["table"], seat=3)
    form = {"action": "record_fouls", "_selected_action": [row.pk], "apply": "1", "reason": "noise"}
    assert client.post("/admin/matchmaking/seat/", form, follow=True).status_code == 200
    entry = ModerationAction.objects.get()
    assert (entry.action, entry.source, entry.details["fouls"]) == ("foul", "admin", 1)
