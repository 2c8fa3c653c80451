"""docs/moderation.md aborting a deal: ends at once, unscored, not rated, an `aborted` event, table closed."""

import pytest

from accounts.models import ModerationAction, RatingChange
from games import services as game_services
from games.models import Game
from matchmaking.models import Report, Table
from tests.conftest import assert_error
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
    assert game.status == "aborted" and game.unscored and game.deadline is None and game.final is None
    table = Table.objects.get(pk=setup["table"])
    assert table.status == "dissolved" and table.closed_reason == "aborted"
    assert table.scores == scores_before and table.deals_done == 0
    table_events = setup["clients"][2].get(f"/api/v1/tables/{setup['table']}/events?after=0").json()["events"]
    assert table_events[-1]["type"] == "table_closed" and table_events[-1]["reason"] == "aborted"
    assert Game.objects.filter(table_id=setup["table"]).count() == 1  # no next deal
    events = setup["clients"][2].get(f"/api/v1/games/{setup['game']}/events?after=0").json()["events"]
    assert events[-1]["type"] == "aborted" and events[-1]["reason"] == "server bug in deal"
    # Not rated, even by the sweep for lost rating tasks.
    assert game_services.game_ratings_update(game_id=setup["game"]) is False
    assert game_services.games_ratings_sweep(older_than=-60) == 0
    assert not RatingChange.objects.exists()
    # Players can no longer act; the final view (cards, seed) is not published.
    act = setup["clients"][0].post(f"/api/v1/games/{setup['game']}/actions", {"type": "pass"}, format="json")
    assert_error(act, 409, "game_over")
    assert_error(setup["clients"][0].get(f"/api/v1/games/{setup['game']}/final"), 409, "game_not_over")
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
