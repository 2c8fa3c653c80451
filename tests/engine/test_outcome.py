"""The deal outcome value (docs/engine.md `context`; docs/rules.md §1 "Teams", "End of a deal", §2.7, §3
scoring
and tribute): for random playouts of every preset, `deal_outcome` says what `final_view` says, its
JSON form round-trips, and the next deal is the same whichever form of the previous deal is given.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from games import engine
from games.engine import Action, DealOutcome, deal_outcome

from .helpers import ENDED, PRESET_NAMES

TRIBUTE_PRESETS = ("wuren", "laowang", "pagat")


def _random_playout(rules, seed, *, prefer_decline=False):
    rnd = random.Random(seed)
    state = engine.new_deal(rules, seed=seed)
    steps = 0
    while state.phase not in ENDED:
        steps += 1
        assert steps < 3000
        seats = engine.to_act(state)
        seat = seats[rnd.randrange(len(seats))]
        legal = engine.legal_actions(state, seat)
        declines = [a for a in legal if a.type == "decline"]
        action = declines[0] if prefer_decline and declines else legal[rnd.randrange(len(legal))]
        state, _ = engine.apply_action(state, seat, action)
    return state


def _check_agrees_with_final_view(outcome: DealOutcome, final: dict) -> None:
    assert outcome.void == final["void"]
    assert list(outcome.roles) == final["roles"]
    assert outcome.emperor == final["emperor"]
    assert list(outcome.places) == final["places"]
    assert list(outcome.scores) == final["scores"]
    assert outcome.tribute.to_json() == final["tribute"]
    assert outcome.next_start_seat == final["next_start_seat"]
    assert outcome.multiplier == final["multiplier"]
    if outcome.void:
        assert outcome.emperor_side == outcome.other_side == ()
        assert set(outcome.scores) == {0}
        return
    # docs/rules.md §1 "Teams": emperor + guard against three, or a soloist against four.
    side_roles = {"emperor", "guard", "soloist"}
    assert set(outcome.emperor_side) == {s for s in range(5) if final["roles"][s] in side_roles}
    assert outcome.emperor_side[0] == final["emperor"]
    assert len(outcome.emperor_side) == (1 if final["solo"] else 2)
    assert sorted(outcome.emperor_side + outcome.other_side) == [0, 1, 2, 3, 4]
    # One side's members all score alike: the side's result (docs/rules.md §3 scoring tables).
    other_scores = {outcome.scores[s] for s in outcome.other_side}
    assert len(other_scores) == 1


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_outcome_agrees_with_final_view_and_next_deal_is_the_same_from_either(name):
    rules = engine.preset(name)
    tribute_seen = False
    for seed in range(6):
        state = _random_playout(rules, 1000 + seed)
        final = engine.final_view(state)
        outcome = deal_outcome(state)
        _check_agrees_with_final_view(outcome, final)
        stored = json.loads(json.dumps(outcome.to_json()))
        assert DealOutcome.from_json(stored) == outcome
        tribute_seen = tribute_seen or bool(outcome.tribute.gives)

        from_view = engine.new_deal(rules, seed=77 + seed, context=final)
        from_outcome = engine.new_deal(rules, seed=77 + seed, context=outcome)
        from_stored = engine.new_deal(rules, seed=77 + seed, context=stored)
        assert from_outcome == from_view
        assert from_stored == from_view
        assert engine.opening_events(from_outcome) == engine.opening_events(from_view)
        assert from_view.start_seat == final["next_start_seat"]
    if name in TRIBUTE_PRESETS:
        assert tribute_seen, "no playout owed tribute: the next-deal comparison proved little"


def test_void_deal_outcome_has_no_sides_and_keeps_the_start_seat():
    """docs/rules.md §3.2: ten declines void a lianzhong deal; a void deal scores 0 and keeps its start
    seat."""
    rules = engine.preset("lianzhong_simple")
    state = _random_playout(rules, 5, prefer_decline=True)
    assert state.phase == "void"
    outcome = deal_outcome(state)
    _check_agrees_with_final_view(outcome, engine.final_view(state))
    assert outcome.emperor is None and outcome.roles == (None,) * 5
    assert outcome.next_start_seat == state.start_seat


def test_outcome_of_a_running_deal_is_refused():
    state = engine.new_deal(engine.preset("weihai"), seed=3)
    with pytest.raises(ValueError):
        deal_outcome(state)


def test_context_of_another_type_is_refused():
    with pytest.raises(ValueError):
        engine.new_deal(engine.preset("weihai"), seed=3, context=[Action("pass")])


# ---------------------------------------------------------------- stored states of format v1

V1_STATES = Path(__file__).parent / "data" / "states_v1.json"


def test_states_stored_in_format_v1_read_back_as_their_replay():
    """States the service stored before the State dataclass (format v1, written by the engine of
    commit b7bcaf1) read back equal to the replay of their setup and actions (docs/engine.md)."""
    stored = json.loads(V1_STATES.read_text())
    assert {entry["state"]["v"] for entry in stored} == {1}
    for entry in stored:
        rules = engine.preset(entry["preset"])
        replayed = engine.replay(rules, entry["setup"], [(seat, a) for seat, a in entry["actions"]])
        assert engine.from_json(entry["state"]) == replayed
        assert engine.to_json(engine.from_json(entry["state"])) == engine.to_json(replayed)
