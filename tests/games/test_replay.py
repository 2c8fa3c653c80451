"""`GET games/{id}/replay` (games/replay_apis.py): the deal step by step for whoever may read its
final view, after the end only; the steps agree with the final view and the engine's own replay."""

import random

import pytest

from games import engine, selectors
from games.models import Game
from games.replay import deal_steps
from tests.api.playing import play_deal
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db


def test_replay_is_refused_while_the_deal_runs_and_served_after(make_table, make_user, make_client):
    setup = make_table(preset="pagat")
    game_id = setup["game"]
    assert_error(setup["clients"][0].get(f"/api/v1/games/{game_id}/replay"), 409, "game_not_over")

    play_deal(setup["clients"], game_id, random.Random(4))
    body = setup["clients"][1].get(f"/api/v1/games/{game_id}/replay").json()
    final = setup["clients"][1].get(f"/api/v1/games/{game_id}/final").json()
    assert [sorted(h) for h in body["start"]["hands"]] == [sorted(h) for h in final["hands"]]
    assert [[step["seat"], step["action"]] for step in body["steps"]] == final["actions"]
    assert body["steps"][-1]["phase"] == final["phase"] and body["scores"] == final["scores"]

    # A spectator of a public table reads it; nobody signed out does.
    _, token = make_user()
    assert make_client(token).get(f"/api/v1/games/{game_id}/replay").status_code == 200
    assert_error(make_client().get(f"/api/v1/games/{game_id}/replay"), 401, "not_authenticated")


def test_a_private_tables_replay_is_for_its_players(make_table, make_user, make_client):
    setup = make_table(preset="pagat", private=True)
    play_deal(setup["clients"], setup["game"], random.Random(5))
    _, token = make_user()
    assert_error(make_client(token).get(f"/api/v1/games/{setup['game']}/replay"), 403, "permission_denied")
    assert setup["clients"][4].get(f"/api/v1/games/{setup['game']}/replay").status_code == 200


def test_a_pass_is_marked_beatable_only_when_the_seat_held_a_beating_play(make_table):
    setup = make_table(preset="pagat")
    game = play_deal(setup["clients"], setup["game"], random.Random(6))
    rules = selectors.rules_for(preset=game.preset, options=game.options)
    actions = selectors.game_replay_log(game=Game.objects.get(pk=game.pk))
    steps = deal_steps(rules=rules, setup=game.setup, actions=actions)["steps"]
    state = engine.new_deal(rules, **game.setup)
    marked = 0
    for (seat, action), step in zip(actions, steps, strict=True):
        could = any(a.type == engine.ActionType.PLAY for a in engine.legal_actions(state, seat))
        assert step["beatable"] == (action.type == engine.ActionType.PASS and could)
        marked += step["beatable"]
        state, _ = engine.apply_action(state, seat, action)
    # The random players pass with plays in hand: the marking is exercised, not vacuous.
    assert marked > 0
    assert steps[-1]["hands"] == [engine.seat_view(state, s)["hand"] for s in range(5)]
