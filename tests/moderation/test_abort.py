"""docs/moderation.md aborting a deal: ends at once, unscored, not rated, an `aborted` event, table closed."""

import random

import pytest

from accounts.models import ModerationAction, RatingChange
from games import services as game_services
from games.models import Game
from matchmaking.models import Report, Table
from tests.api.playing import get_view, post_action, step
from tests.conftest import assert_error, deal_end_steps
from tests.moderation.helpers import make_moderator

pytestmark = pytest.mark.django_db


def test_aborting_ends_the_deal_unscored_and_closes_the_table(make_table, make_user, make_client):
    setup = make_table()
    _, moderator = make_moderator(make_user, make_client)
    scores_before = Table.objects.get(pk=setup["table"]).scores
    response = moderator.post(
        f"/api/v1/moderation/games/{setup['game']}/abort", {"reason": "server bug in deal"}, format="json"
    )
    assert response.status_code == 200
    assert response.json() == {
        "id": setup["game"],
        "table_id": setup["table"],
        "status": "aborted",
        "unscored": True,
    }
    game = Game.objects.get(pk=setup["game"])
    assert game.status == "aborted" and game.unscored and game.deadline is None
    # The table closes in its own step after the commit (docs/architecture.md "The end of a deal").
    assert game.table_pending and Table.objects.get(pk=setup["table"]).status == "playing"
    assert deal_end_steps() == 1
    table = Table.objects.get(pk=setup["table"])
    assert table.status == "dissolved" and table.closed_reason == "aborted"
    assert table.scores == scores_before and table.deals_done == 0
    listed = setup["staff"].get(f"/api/v1/tables/{setup['table']}").json()["games"]
    assert [(g["status"], g["scores"], g["unscored"]) for g in listed] == [("aborted", None, True)]
    table_events = setup["clients"][2].get(f"/api/v1/tables/{setup['table']}/events?after=0").json()["events"]
    assert table_events[-1]["type"] == "table_closed" and table_events[-1]["reason"] == "aborted"
    assert Game.objects.filter(table_id=setup["table"]).count() == 1  # no next deal
    events = setup["clients"][2].get(f"/api/v1/games/{setup['game']}/events?after=0").json()["events"]
    assert events[-1]["type"] == "aborted" and events[-1]["reason"] == "server bug in deal"
    # Not rated, even by the sweep for lost rating tasks.
    assert game_services.game_ratings_update(game_id=setup["game"]) is False
    assert game_services.games_ratings_sweep(older_than=-60) == 0
    assert not RatingChange.objects.exists()
    # Players can no longer act.
    act = setup["clients"][0].post(f"/api/v1/games/{setup['game']}/actions", {"type": "pass"}, format="json")
    assert_error(act, 409, "game_over")
    entry = ModerationAction.objects.get()
    assert (entry.action, entry.target_type, entry.target_id, entry.source) == (
        "abort",
        "game",
        setup["game"],
        "api",
    )
    assert entry.details["table"] == setup["table"]


def test_aborting_twice_or_a_missing_deal_is_refused(make_table, make_user, make_client):
    setup = make_table()
    _, moderator = make_moderator(make_user, make_client)
    url = f"/api/v1/moderation/games/{setup['game']}/abort"
    assert moderator.post(url, {"reason": "x"}, format="json").status_code == 200
    last_seq = Game.objects.get(pk=setup["game"]).last_seq
    assert_error(moderator.post(url, {"reason": "again"}, format="json"), 409, "game_over")
    assert_error(
        moderator.post("/api/v1/moderation/games/999999/abort", {"reason": "x"}, format="json"),
        404,
        "not_found",
    )
    assert_error(moderator.post(url, {}, format="json"), 400, "invalid_request")
    assert Game.objects.get(pk=setup["game"]).last_seq == last_seq
    assert ModerationAction.objects.count() == 1


def test_an_abort_naming_a_report_marks_it_actioned(make_table, make_user, make_client):
    setup = make_table()
    _, moderator = make_moderator(make_user, make_client)
    report_id = (
        setup["clients"][0]
        .post(
            "/api/v1/reports",
            {"user": setup["users"][1].pk, "game": setup["game"], "reason": "cheating"},
            format="json",
        )
        .json()["id"]
    )
    moderator.post(
        f"/api/v1/moderation/games/{setup['game']}/abort",
        {"reason": "bot", "report": report_id},
        format="json",
    )
    assert Report.objects.get(pk=report_id).status == "actioned"
    assert ModerationAction.objects.get().subject_user_id == setup["users"][1].pk


def test_players_cannot_abort(make_table):
    setup = make_table()
    response = setup["clients"][0].post(
        f"/api/v1/moderation/games/{setup['game']}/abort", {"reason": "x"}, format="json"
    )
    assert_error(response, 403, "permission_denied")
    assert Game.objects.get(pk=setup["game"]).status == "running"


def test_an_aborted_deal_serves_its_final_view_unscored_with_the_reason(make_table, make_user, make_client):
    """docs/client-guide.md: the deal has ended, so `final` answers (game_not_over is only for a running
    deal): every hand as dealt, the actions played so far, no result, and the moderator's reason."""
    setup = make_table()
    _, moderator = make_moderator(make_user, make_client)
    clients, game_id = setup["clients"], setup["game"]
    dealt = [get_view(clients[seat], game_id)["hand"] for seat in range(5)]
    view = get_view(clients[0], game_id)
    seat = view["to_act"][0]
    action = get_view(clients[seat], game_id)["legal_actions"][0]
    assert post_action(clients[seat], game_id, action).status_code == 200
    url = f"/api/v1/moderation/games/{game_id}/abort"
    assert moderator.post(url, {"reason": "server bug in deal"}, format="json").status_code == 200
    response = clients[1].get(f"/api/v1/games/{game_id}/final")
    assert response.status_code == 200, response.content
    final = response.json()
    assert final["status"] == "aborted" and final["unscored"] is True
    assert final["abort_reason"] == "server bug in deal"
    assert final["hands"] == dealt and final["actions"][0] == [seat, action]
    assert final["scores"] == [0] * 5 and final["void"] is False and final["to_act"] == []
    # A deal aborted before aborted deals kept a final view gets the same answer, built from its row.
    Game.objects.filter(pk=game_id).update(final=None)
    assert clients[1].get(f"/api/v1/games/{game_id}/final").json() == final


def test_a_running_deal_has_no_final_view_and_an_ended_one_no_abort_reason(make_table):
    setup = make_table(deals=1)
    client, game_id = setup["clients"][0], setup["game"]
    assert_error(client.get(f"/api/v1/games/{game_id}/final"), 409, "game_not_over")
    rng = random.Random(3)
    while step(setup["clients"], game_id, rng):
        pass
    final = client.get(f"/api/v1/games/{game_id}/final").json()
    assert final["status"] in ("over", "void") and final["abort_reason"] is None
