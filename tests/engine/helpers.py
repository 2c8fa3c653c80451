"""Shared helpers for the engine test suite (written from docs/rules.md, not from the engine).

Everything here goes through the public engine API of docs/engine.md only, so the suite checks the
implementation independently.
"""

from __future__ import annotations

from collections import Counter

import pytest

from games import engine
from games.engine import Action, IllegalAction

PRESET_NAMES = ("weihai", "lianzhong_simple", "lianzhong_classic", "wuren", "campus", "laowang", "pagat")
RANKS = "3456789TJQKA2"
SUITS = "SHCD"
WINDOW_PHASES = ("solo_window", "declaration_window", "kick_window")
ENDED = ("over", "void")

PASS = Action("pass")
STAY = Action("stay")
ACCEPT = Action("accept")
SOLO = Action("solo")
TRANSFER = Action("transfer")
REVEAL = Action("reveal")
REBEL = Action("rebel")
KICK = Action("kick")


def P(*cards: str) -> Action:
    """A `play` action; `P("9S 9H")` and `P("9S", "9H")` are the same."""
    codes: list[str] = []
    for c in cards:
        codes.extend(c.split())
    return Action("play", tuple(codes))


def C(code: str) -> Action:
    return Action("call", card=code)


def cards(text: str) -> list[str]:
    return text.split()


def rules_of(preset, **options):
    return engine.preset(preset, **options) if isinstance(preset, str) else preset


def deal(preset, hands, **kwargs):
    """A scripted deal: `hands` is five strings (or lists) of codes."""
    lists = [h.split() if isinstance(h, str) else list(h) for h in hands]
    return engine.new_deal(rules_of(preset), hands=lists, **kwargs)


def act(state, seat, action):
    new, _events = engine.apply_action(state, seat, action)
    return new


def run(state, steps):
    """Apply `[(seat, action), ...]`; a step may also be `(seat, "pass")` or `(seat, "9S 9H")`."""
    for seat, action in steps:
        if isinstance(action, str):
            action = PASS if action == "pass" else P(action)
        state = act(state, seat, action)
    return state


def answer_window(state, answers=None, expect=None):
    """Answer the open window: `answers` maps seat -> Action, every other asked seat stays."""
    answers = dict(answers or {})
    assert state.phase in WINDOW_PHASES, state.phase
    if expect is not None:
        assert state.phase == expect
    for seat in list(engine.to_act(state)):
        state = act(state, seat, answers.pop(seat, STAY))
    assert not answers, f"seats {sorted(answers)} were not asked"
    return state


def stay_through_windows(state):
    while state.phase in WINDOW_PHASES:
        state = answer_window(state)
    return state


def legal_types(state, seat) -> set[str]:
    return {a.type for a in engine.legal_actions(state, seat)}


def legal_of(state, seat, kind):
    return [a for a in engine.legal_actions(state, seat) if a.type == kind]


def one_legal(state, seat, kind):
    found = legal_of(state, seat, kind)
    assert found, f"seat {seat} has no legal {kind!r}: {engine.legal_actions(state, seat)}"
    return found[0]


def pview(state):
    return engine.public_view(state)


def sview(state, seat):
    return engine.seat_view(state, seat)


def hand(state, seat) -> list[str]:
    return list(engine.seat_view(state, seat)["hand"])


def value_key(code: str):
    return ordered_value(code)


def ordered_value(code: str) -> int:
    """The printed order of docs/rules.md §1 (marked cards as their plain jokers)."""
    if code.startswith("BJ"):
        return 17
    if code.startswith("SJ"):
        return 16
    return RANKS.index(code[0]) + 3


def play_multiset(codes) -> Counter:
    """A play up to interchangeable cards: plain cards by rank, marked cards by code."""
    return Counter(c if c.endswith("*") else (c if c in ("BJ", "SJ") else c[0]) for c in codes)


def assert_illegal(state, seat, action, code=None, codes=None):
    """The action raises IllegalAction (with the code, if given) and the state is unchanged."""
    before = engine.to_json(state)
    with pytest.raises(IllegalAction) as info:
        engine.apply_action(state, seat, action)
    after = engine.to_json(state)
    assert after == before, "an IllegalAction changed the state"
    if code is not None:
        assert info.value.code == code, f"expected {code}, got {info.value.code}: {info.value}"
    if codes is not None:
        assert info.value.code in codes, f"expected one of {codes}, got {info.value.code}: {info.value}"
    return info.value


def expected_deck(name: str) -> Counter:
    """The deck of each preset as docs/rules.md §3 describes it (codes; weihai's missing 6s by rank only)."""
    deck: Counter = Counter()
    four_decks_6_up = "6789TJQKA2"
    if name in ("weihai", "lianzhong_simple", "lianzhong_classic", "pagat"):
        ranks = four_decks_6_up
    elif name == "campus":
        ranks = "456789TJQKA2"
    else:
        ranks = RANKS
    for r in ranks:
        for s in SUITS:
            deck[r + s] = 4
    deck["BJ"] = 4
    deck["SJ"] = 4
    if name in ("weihai", "lianzhong_simple", "pagat"):
        deck["BJ"] -= 1
        deck["BJ*"] = 1
        deck["SJ"] -= 1
        deck["SJ*"] = 1
    elif name in ("lianzhong_classic", "wuren", "campus"):
        deck["BJ"] -= 1
        deck["BJ*"] = 1
    elif name == "laowang":
        deck["SJ"] -= 1
        deck["SJ*"] = 1
    if name == "weihai":
        deck["6S"] -= 1  # RULES says only "minus three 6s": compare weihai 6s by rank
        deck["6H"] -= 1
        deck["6C"] -= 1
    if name == "campus":
        for s in SUITS:
            deck["3" + s] = 1
        deck["3S"] += 1
    return deck


def by_rank(counter: Counter) -> Counter:
    out: Counter = Counter()
    for code, n in counter.items():
        out[code if code in ("BJ", "SJ", "BJ*", "SJ*") else code[0]] += n
    return out


def tribute_map(final, key) -> dict[int, int]:
    return {int(seat): int(n) for seat, n in final["tribute"][key] if n}
