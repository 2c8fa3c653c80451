"""Serialising a state (versioned, compact JSON) and replaying a deal from its setup and actions.

`to_json` stores every field the `State` dataclass declares, in declaration order: the rule preset
and options, the seed and setup, and the deal's progress. Card sequences are space-joined code
strings, so a fresh 168-card deal stays well under 8 KB. Fields with a shape of their own have a
codec below; every other field is a JSON scalar or a flat tuple (stored as a list).
"""

from __future__ import annotations

from .cards import ALL_CODES
from .deal import new_deal
from .machine import apply_action
from .rules import preset
from .state import ACTION_TYPES, STATE_FIELDS, Action, Phase, State, TablePlay, Tribute, Window

FORMAT_VERSION = 2


def _cards(codes) -> str:
    return " ".join(codes)


def _uncards(text: str) -> tuple[str, ...]:
    return tuple(text.split()) if text else ()


def action_to_dict(action: Action) -> dict:
    return action.to_dict()


def action_from_dict(data: dict) -> Action:
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


def _encode_window(window: Window | None):
    if window is None:
        return None
    return [str(window.kind), list(window.asked), [[seat, str(answer)] for seat, answer in window.answers]]


def _decode_window(data) -> Window | None:
    return Window(data[0], tuple(data[1]), tuple(tuple(a) for a in data[2])) if data else None


def _encode_table(table: TablePlay | None):
    return [table.seat, _cards(table.cards), list(table.values), table.bomb] if table else None


def _decode_table(data) -> TablePlay | None:
    return TablePlay(data[0], _uncards(data[1]), tuple(data[2]), data[3]) if data else None


def _encode_entry(seat: int, action: Action) -> list:
    return [seat, [str(action.type), _cards(action.cards), action.card]]


# Recently encoded logs, by the identity of their last entry (kept alive here, so the id is not
# reused): a move appends a few entries to the log of the state it was applied to, sharing the
# entries, so its encoding is that log's and the new ones. A deal's log reaches 300 entries and
# encoding it whole on every move was a twentieth of the move's CPU. Cleared whole when full; a
# miss only encodes the whole log again.
_ENCODED_LOGS_MAX = 128
_APPENDED_MAX = 8  # entries a change appends and still finds its predecessor's encoding
_encoded_logs: dict[int, tuple[tuple, list]] = {}


def _encode_log(log) -> list:
    count = len(log)
    encoded = None
    for known in range(count, max(count - _APPENDED_MAX, 1) - 1, -1):
        hit = _encoded_logs.get(id(log[known - 1]))
        # The same entry object ends a known log of this length: that log is this one's prefix
        # (checked; element by element it is an identity test when they share entries).
        if hit is not None and len(hit[0]) == known and log[:known] == hit[0]:
            encoded = hit[1] + [_encode_entry(seat, a) for seat, a in log[known:]]
            break
    if encoded is None:
        encoded = [_encode_entry(seat, a) for seat, a in log]
    _remember_encoded(log, encoded)
    return list(encoded)


def _remember_encoded(log: tuple, encoded: list) -> None:
    if log:
        if len(_encoded_logs) >= _ENCODED_LOGS_MAX:
            _encoded_logs.clear()
        _encoded_logs[id(log[-1])] = (tuple(log), encoded)


# Decoded actions by their stored form, shared (an Action is immutable): a state read in another
# web worker than the one that saved it (most moves, with several) decodes its whole log again, and
# building 300 Actions was most of reading a state. Emptied whole when full.
_DECODED_ACTIONS_MAX = 50_000
_decoded_actions: dict[tuple, Action] = {}


def _decode_action(stored) -> Action:
    key = (stored[0], stored[1], stored[2])
    action = _decoded_actions.get(key)
    if action is None:
        if len(_decoded_actions) >= _DECODED_ACTIONS_MAX:
            _decoded_actions.clear()
        action = _decoded_actions[key] = Action(stored[0], _uncards(stored[1]), stored[2])
    return action


def _decode_log(data) -> tuple:
    log = tuple((seat, _decode_action(a)) for seat, a in data)
    # The stored list is this log's encoding: the state's next save (in another web worker than
    # the last move's, most often) encodes only what it appends.
    _remember_encoded(log, list(data))
    return log


_HAND_LISTS = ((lambda hands: [_cards(h) for h in hands]), (lambda data: tuple(_uncards(h) for h in data)))
_CARD_TUPLE = (_cards, _uncards)
# field -> (encode, decode), for the fields that are not scalars or flat tuples.
_CODECS = {
    "hands": _HAND_LISTS,
    "dealt": _HAND_LISTS,
    "aside": _CARD_TUPLE,
    "pile": _CARD_TUPLE,
    "discards": (
        (lambda pairs: [[seat, code] for seat, code in pairs]),
        (lambda data: tuple((seat, code) for seat, code in data)),
    ),
    "phase": (str, Phase),
    "specials": (sorted, frozenset),
    "window": (_encode_window, _decode_window),
    "declarations": ((lambda d: [[seat, str(kind)] for seat, kind in d]),
                     (lambda data: tuple(tuple(x) for x in data))),
    "table": (_encode_table, _decode_table),
    "tribute_owed": ((lambda tribute: tribute.to_json() if tribute else None),
                     (lambda data: Tribute.from_json(data) if data else None)),
    "log": (_encode_log, _decode_log),
    "opening_events": (list, tuple),
}
_STORED_FIELDS = tuple(name for name in STATE_FIELDS if name != "rules")  # rules: preset + options


def _encode_plain(value):
    return list(value) if isinstance(value, tuple) else value


def _decode_plain(value):
    return tuple(value) if isinstance(value, list) else value


def to_json(state: State) -> dict:
    data = {"v": FORMAT_VERSION, "preset": state.rules.name, "options": dict(state.rules.options)}
    for name in _STORED_FIELDS:
        encode = _CODECS[name][0] if name in _CODECS else _encode_plain
        data[name] = encode(getattr(state, name))
    return data


def from_json(data: dict) -> State:
    version = data.get("v")
    if version == 1:
        data = _upgrade_from_v1(data)
    elif version != FORMAT_VERSION:
        raise ValueError(f"unsupported state format {version!r}")
    values = {"rules": preset(data["preset"], **data["options"])}
    for name in _STORED_FIELDS:
        if name not in data:  # a field added since the state was stored keeps its default
            continue
        decode = _CODECS[name][1] if name in _CODECS else _decode_plain
        values[name] = decode(data[name])
    return State(**values)


def _upgrade_from_v1(data: dict) -> dict:
    """Version 1 kept the scalar fields in a nested "fields" object; the encodings are the same."""
    flat = {key: value for key, value in data.items() if key != "fields"}
    flat.update(data["fields"])
    return flat


def replay(rules, setup: dict, actions) -> State:
    """Deal again from the stored setup and apply the logged actions (§1 "Randomness")."""
    state = new_deal(rules, **setup)
    for seat, action in actions:
        if isinstance(action, dict):
            action = action_from_dict(action)
        state, _ = apply_action(state, seat, action)
    return state
