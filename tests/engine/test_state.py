"""The state value (docs/engine.md "States are immutable values", §2 phases): a declared, slotted
dataclass; applying an action never changes the state it was applied to; views and the stored JSON
carry phases and action types as plain strings."""

from __future__ import annotations

import dataclasses
import json
import random
from unittest import mock

import pytest

from games import engine
from games.engine import Phase, State

from .helpers import ENDED, PRESET_NAMES


def test_state_declares_its_fields_and_has_no_instance_dict():
    state = engine.new_deal(engine.preset("weihai"), seed=1)
    names = {field.name for field in dataclasses.fields(State)}
    assert {"hands", "phase", "emperor", "guard", "table", "log", "tribute_owed"} <= names
    assert not hasattr(state, "__dict__"), "slotted: a misspelt field cannot be set"
    with pytest.raises(AttributeError):
        state.emperer = 3  # a typo of `emperor`


def _snapshot(state):
    return tuple(getattr(state, field.name) for field in dataclasses.fields(State))


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_applying_actions_never_changes_the_state_handed_out(name):
    rnd = random.Random(4)
    state = engine.new_deal(engine.preset(name), seed=11)
    while state.phase not in ENDED:
        before = _snapshot(state)
        seat = rnd.choice(engine.to_act(state))
        new, _ = engine.apply_action(state, seat, rnd.choice(engine.legal_actions(state, seat)))
        assert _snapshot(state) == before
        assert new is not state and new.log[:-1] == state.log
        state = new


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_views_and_stored_json_hold_plain_strings(name):
    rnd = random.Random(9)
    state = engine.new_deal(engine.preset(name), seed=23)
    while state.phase not in ENDED:
        assert isinstance(state.phase, Phase)
        view = engine.seat_view(state, engine.to_act(state)[0])
        assert type(view["phase"]) is str and view["phase"] == state.phase.value
        assert view["window"] is None or type(view["window"]["kind"]) is str
        assert all(type(a["type"]) is str for a in view["legal_actions"])
        seat = rnd.choice(engine.to_act(state))
        state, _ = engine.apply_action(state, seat, rnd.choice(engine.legal_actions(state, seat)))
    stored = engine.to_json(state)
    assert json.loads(json.dumps(stored)) == stored
    assert type(stored["phase"]) is str
    assert all(type(action[0]) is str for _, action in stored["log"])
    assert engine.from_json(stored) == state
    final = engine.final_view(state)
    assert all(type(action["type"]) is str for _, action in final["actions"])


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_evolve_copies_every_field(name):
    """State.evolve (generated from the fields) is a new object equal to the original, field by field."""
    rnd = random.Random(5)
    state = engine.new_deal(engine.preset(name), seed=12)
    while state.phase not in ENDED:
        copy = state.evolve()
        assert copy is not state and copy == state and _snapshot(copy) == _snapshot(state)
        seat = rnd.choice(engine.to_act(state))
        state, _ = engine.apply_action(state, seat, rnd.choice(engine.legal_actions(state, seat)))


def test_an_action_is_immutable_and_equal_only_to_an_action_of_the_same_fields():
    """docs/engine.md "Functions": `Action` kept the frozen dataclass's value semantics when it
    became a named tuple (a listed play is built without its constructor, plays.py `play_action`)."""
    from games.engine.plays import play_action

    action = engine.Action(engine.ActionType.PLAY, ("9S", "9H"))
    listed = play_action(("9S", "9H"))
    assert listed == action and not listed != action
    assert hash(listed) == hash(action) and {listed, action} == {action}
    assert type(listed) is engine.Action
    assert (listed.type, listed.cards, listed.card) == ("play", ("9S", "9H"), None)
    plain = ("play", ("9S", "9H"), None)
    assert action != plain and not action == plain and plain != action and not plain == action
    assert action == mock.ANY and not action != mock.ANY
    assert action != engine.Action(engine.ActionType.PLAY, ("9S",)) and action != engine.Action("pass")
    assert engine.Action("pass") == engine.Action(engine.ActionType.PASS)  # a str enum: the plain string
    with pytest.raises(AttributeError):
        action.cards = ("BJ",)
    assert action.to_dict() == {"type": "play", "cards": ["9S", "9H"], "card": None}
