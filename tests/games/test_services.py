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


def test_a_move_writes_its_events_game_and_your_turn_in_one_statement(make_table):
    """On PostgreSQL the move's events, the game row and the prompted players' `your_turn` entries
    (docs/matchmaking.md "Your feed") are one statement; each entry is numbered after its feed's last one."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from accounts.feed import feed_append, feed_read
    from accounts.models import FeedEvent
    from tests.api.playing import prompted_seats

    if connection.vendor != "postgresql":
        pytest.skip("the one-statement write is PostgreSQL's")
    setup = make_table(setups=[{"seed": 21}])
    game_id = setup["game"]
    rng = random.Random(21)
    for _ in range(60):  # to the play phase
        public = get_view(setup["clients"][0], game_id)
        for seat in prompted_seats(public):
            own = get_view(setup["clients"][seat], game_id)
            if own.get("legal_actions"):
                break
        if public["phase"] == "play":
            break
        post_action(setup["clients"][seat], game_id, rng.choice(own["legal_actions"]), version=own["version"])
    assert public["phase"] == "play"
    users = setup["users"]
    for user in users:  # every feed already has entries: the new ones are numbered after them
        feed_append(user_id=user.pk, type="sanction", data={"note": "an entry before"})
    last = {user.pk: feed_read(user_id=user.pk, after=0)["last_seq"] for user in users}
    with CaptureQueriesContext(connection) as queries:
        response = post_action(
            setup["clients"][seat], game_id, own["legal_actions"][0], version=own["version"]
        )
    assert response.status_code == 200, response.json()
    writes = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(("WITH", "INSERT", "UPDATE"))]
    assert len(writes) == 1, writes
    assert "feed_appended" in writes[0] and "games_event" in writes[0]
    (lock,) = [q["sql"] for q in queries if "FOR UPDATE" in q["sql"]]
    assert 'FOR UPDATE OF "games_game"' in lock  # the game row only: the table row stays free
    announced = FeedEvent.objects.filter(
        type="your_turn", data__game=game_id, data__version=response.json()["version"]
    )
    assert announced.exists()
    for entry in announced:
        assert entry.seq == last[entry.user_id] + 1
