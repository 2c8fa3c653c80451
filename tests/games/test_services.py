"""games.services: persistence of a move, replayability, and the cost of one move."""

import json
import random

import pytest

from games import engine, selectors
from games.models import Event, Game
from tests.api.playing import get_view, play_deal, post_action

pytestmark = pytest.mark.django_db


def _as_stored(state) -> dict:
    """to_json as the database gives it back (tuples become lists)."""
    return json.loads(json.dumps(engine.to_json(state)))


@pytest.mark.parametrize("preset", ["weihai", "wuren", "laowang"])
def test_stored_setup_and_event_log_replay_to_the_stored_state(preset, make_table):
    setup = make_table(preset=preset)
    game = play_deal(setup["clients"], setup["game"], random.Random(f"replay-{preset}"))
    rules = engine.preset(game.preset, **game.options)
    replayed = engine.replay(rules, game.setup, selectors.game_replay_log(game=game))
    assert _as_stored(replayed) == game.state
    assert json.loads(json.dumps(engine.final_view(replayed))) == game.final


def test_a_running_deal_replays_too(make_table):
    setup = make_table(preset="pagat")
    rng = random.Random(9)
    for _ in range(25):
        game = Game.objects.get(pk=setup["game"])
        state = engine.from_json(game.state)
        if state.phase in ("over", "void"):
            break
        seat = engine.to_act(state)[0]
        view = get_view(setup["clients"][seat], setup["game"])
        post_action(
            setup["clients"][seat], setup["game"], rng.choice(view["legal_actions"]), version=view["version"]
        )
    game = Game.objects.get(pk=setup["game"])
    replayed = engine.replay(engine.preset(game.preset), game.setup, selectors.game_replay_log(game=game))
    assert _as_stored(replayed) == game.state
    assert Event.objects.filter(game=game, action__isnull=False).count() == game.version


def test_second_deal_replays_with_its_context(make_table):
    setup = make_table(preset="wuren", deals=3)
    first = play_deal(setup["clients"], setup["game"], random.Random(4))
    second = Game.objects.filter(table_id=setup["table"]).exclude(pk=first.pk).get()
    # The next deal's context is the engine's DealOutcome of the first (its JSON form is stored).
    expected = (
        engine.deal_outcome(engine.from_json(first.state)).to_json()
        if first.status == "over"
        else first.setup["context"]
    )
    assert second.setup["context"] == json.loads(json.dumps(expected))
    replayed = engine.replay(engine.preset("wuren"), second.setup, [])
    assert _as_stored(replayed) == second.state


def test_one_move_is_a_handful_of_queries(make_table, django_assert_max_num_queries):
    setup = make_table()
    state = engine.from_json(Game.objects.get(pk=setup["game"]).state)
    seat = engine.to_act(state)[0]
    view = get_view(setup["clients"][seat], setup["game"])
    # token, lock game (+table), insert events, update game, idempotency lookup + insert, savepoints,
    # and the prompted players' your_turn feed entries: one upsert and one insert however many.
    with django_assert_max_num_queries(10):
        response = post_action(
            setup["clients"][seat],
            setup["game"],
            view["legal_actions"][0],
            version=view["version"],
            key="cheap",
        )
    assert response.status_code == 200
