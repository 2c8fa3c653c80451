"""Serialising a state (versioned, compact JSON) and replaying a deal from its setup and actions.

`to_json` stores the rule preset and options, the seed and setup, and every field of the state;
hands are space-joined code strings so a fresh 168-card deal stays well under 8 KB.
"""

from __future__ import annotations

from .deal import new_deal
from .machine import apply_action
from .rules import preset
from .state import Action, State, TablePlay, Window

FORMAT_VERSION = 1
_CARD_TUPLES = ("pile", "aside")


def _cards(codes) -> str:
    return " ".join(codes)


def _uncards(text: str) -> tuple[str, ...]:
    return tuple(text.split()) if text else ()


def action_to_dict(action: Action) -> dict:
    return {"type": action.type, "cards": list(action.cards), "card": action.card}


def action_from_dict(data: dict) -> Action:
    from .cards import ALL_CODES
    from .state import ACTION_TYPES

    if not isinstance(data, dict):
        raise ValueError("an action is an object")
    kind = data.get("type")
    if kind not in ACTION_TYPES:
        raise ValueError(f"unknown action type {kind!r}")
    cards = data.get("cards") or []
    card = data.get("card")
    if not isinstance(cards, (list, tuple)) or not all(isinstance(c, str) for c in cards):
        raise ValueError("cards must be a list of card codes")
    for code in list(cards) + ([card] if card is not None else []):
        if not isinstance(code, str) or code not in ALL_CODES:
            raise ValueError(f"unknown card code {code!r}")
    return Action(kind, tuple(cards), card)


def _encode_action(action: Action) -> list:
    return [action.type, _cards(action.cards), action.card]


def _decode_action(data: list) -> Action:
    return Action(data[0], _uncards(data[1]), data[2])


def to_json(state: State) -> dict:
    d = state.__dict__
    table = state.table
    window = state.window
    return {
        "v": FORMAT_VERSION,
        "preset": state.rules.name,
        "options": dict(state.rules.options),
        "seed": state.seed,
        "start_seat": state.start_seat,
        "hands": [_cards(h) for h in state.hands],
        "dealt": [_cards(h) for h in state.dealt],
        "pile": _cards(state.pile),
        "aside": _cards(state.aside),
        "fields": {k: list(d[k]) if isinstance(d[k], tuple) else d[k] for k in (
            "phase", "candidate", "declines", "turned_card", "transferred_by", "emperor",
            "guard", "solo", "guard_public", "solo_public", "guard_declared", "rebellion_succeeded",
            "called_card", "multiplier", "turn", "scores", "tribute_owed", "next_start_seat")},
        "specials": sorted(state.specials),
        "window": [window.kind, list(window.asked), [list(a) for a in window.answers]] if window else None,
        "declarations": [list(x) for x in state.declarations],
        "table": [table.seat, _cards(table.cards), list(table.values), table.bomb] if table else None,
        "passed": list(state.passed),
        "finish_order": list(state.finish_order),
        "places": list(state.places),
        "log": [[seat, _encode_action(a)] for seat, a in state.log],
        "opening_events": list(state.opening_events),
    }


def from_json(data: dict) -> State:
    if data.get("v") != FORMAT_VERSION:
        raise ValueError(f"unsupported state format {data.get('v')!r}")
    state = object.__new__(State)
    state.rules = preset(data["preset"], **data["options"])
    state.seed = data["seed"]
    state.start_seat = data["start_seat"]
    state.hands = tuple(_uncards(h) for h in data["hands"])
    state.dealt = tuple(_uncards(h) for h in data["dealt"])
    state.pile = _uncards(data["pile"])
    state.aside = _uncards(data["aside"])
    for key, value in data["fields"].items():
        setattr(state, key, value)
    if state.scores is not None:
        state.scores = tuple(state.scores)
    state.specials = frozenset(data["specials"])
    window = data["window"]
    state.window = Window(window[0], tuple(window[1]), tuple(tuple(a) for a in window[2])) if window else None
    state.declarations = tuple(tuple(x) for x in data["declarations"])
    table = data["table"]
    state.table = TablePlay(table[0], _uncards(table[1]), tuple(table[2]), table[3]) if table else None
    state.passed = tuple(data["passed"])
    state.finish_order = tuple(data["finish_order"])
    state.places = tuple(data["places"])
    state.log = tuple((seat, _decode_action(a)) for seat, a in data["log"])
    state.opening_events = tuple(data["opening_events"])
    return state


def replay(rules, setup: dict, actions) -> State:
    """Deal again from the stored setup and apply the logged actions (§1 "Randomness")."""
    state = new_deal(rules, **setup)
    for seat, action in actions:
        if isinstance(action, dict):
            action = action_from_dict(action)
        state, _ = apply_action(state, seat, action)
    return state
