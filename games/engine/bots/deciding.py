"""Everything before play: emperor selection, the guard call, the declaration windows (docs/rules.md §2–§3).

Each answer compares the hand's strength (strength.py) with how strong a dealt hand of this preset
usually is, so one set of thresholds reads the same in every preset:
accept the emperor role with a better-than-usual hand (a little worse when declining costs a 2),
go solo only with a hand among the strongest few in a hundred, declare (明保, 造反, 踢) when the
doubled deal favours my side.
"""

from __future__ import annotations

from ..state import Action
from .reading import Reading, read_view
from .strength import strength

# Median strength of a dealt hand per preset (strength.py), measured over 1,500 seeded hands each;
# the thresholds below are distances from it (the spread between the 10th and the 90th percentile
# is about three).
TYPICAL_STRENGTH = {
    "weihai": -7.2, "lianzhong_simple": -8.1, "lianzhong_classic": -8.1, "wuren": -11.3,
    "campus": -10.0, "laowang": -6.6, "pagat": -8.1,
}
ACCEPT_ABOVE = 0.0
ACCEPT_ABOVE_WHEN_DECLINING_COSTS = -0.6  # declining would hand a 2 away (贴2)
HIDDEN_SOLO_ABOVE = 0.8  # accepting with both marked cards (暗独) rather than 转让 or 让位
SOLO_ABOVE = 3.0  # about the strongest 1 % of dealt hands
DECLARE_ABOVE = 1.0  # 明保 / 造反
KICK_ABOVE = 1.5


def _margin(reading: Reading) -> float:
    return strength(reading) - TYPICAL_STRENGTH[reading.rules.name]


def _with_pile(view: dict) -> Reading:
    """The hand as it would be after accepting: the travelling cards join it."""
    pile = view.get("pile_cards") or []
    return read_view({**view, "hand": list(view["hand"]) + list(pile)}) if pile else read_view(view)


def _find(legal: list[Action], kind: str) -> Action | None:
    return next((a for a in legal if a.type == kind), None)


def choose_selection(view: dict, legal: list[Action]) -> Action:
    reading = _with_pile(view)
    margin = _margin(reading)
    solo, accept = _find(legal, "solo"), _find(legal, "accept")
    decline, transfer = _find(legal, "decline"), _find(legal, "transfer")
    if solo is not None and margin >= SOLO_ABOVE:
        return solo
    if transfer is not None:  # weihai with both marked cards: accept here is a hidden solo
        return accept if margin >= HIDDEN_SOLO_ABOVE or accept is None else transfer
    if accept is not None and decline is not None:
        costs = reading.rules.attach_on_decline != "none" and (view.get("pile") or 0) > 0
        bar = ACCEPT_ABOVE_WHEN_DECLINING_COSTS if costs else ACCEPT_ABOVE
        if reading.rules.guard_mode == "fixed" and "SJ*" in reading.hand:
            bar = HIDDEN_SOLO_ABOVE  # holding both marked cards, accepting is a hidden solo (暗独)
        return accept if margin >= bar else decline
    return accept or decline or legal[0]


def choose_call(view: dict, legal: list[Action]) -> Action:
    """Name a card held three times (the fourth copy's holder is the guard); a card held four times
    makes a solo, hidden or shown (wuren 明独), taken only with a solo-strong hand."""
    reading = read_view(view)
    margin = _margin(reading)
    held = {code: reading.hand.count(code) for code in set(reading.hand)}
    calls = [a for a in legal if a.type == "call"]
    partnered = [a for a in calls if held.get(a.card) == 3]
    if margin >= SOLO_ABOVE:
        shown = [a for a in legal if a.type == "solo"]
        if shown:
            return shown[0]
        alone = [a for a in calls if held.get(a.card) == 4]
        if alone:
            return alone[0]
    if partnered:
        return partnered[0]  # listed highest first
    return calls[0] if calls else legal[0]


def choose_answer(view: dict, legal: list[Action]) -> Action:
    """Window answers: solo (明独 / 抢独), reveal (明保), rebel (造反), kick (踢), else stay."""
    reading = read_view(view)
    margin = _margin(reading)
    stay = _find(legal, "stay") or legal[0]
    for kind, bar in (("solo", SOLO_ABOVE), ("reveal", DECLARE_ABOVE), ("rebel", DECLARE_ABOVE),
                      ("kick", KICK_ABOVE)):
        action = _find(legal, kind)
        if action is not None and margin >= bar:
            return action
    return stay
