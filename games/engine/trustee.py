"""托管 auto-play (RULES §5): the default answer for a seat that timed out or handed over.

Emperor selection: `decline` where declining is free, else `accept` if able, else `decline`;
never `transfer` or `solo`. Guard call: the highest callable card. Windows: `stay`. Play: the
leader plays his smallest legal single card (a must-last hand plays what it must), a follower passes.
"""

from __future__ import annotations

from .machine import legal_actions, to_act
from .state import PASS, Action, IllegalAction, State


def trustee_action(state: State, seat: int) -> Action:
    if seat not in to_act(state):
        raise IllegalAction("not_your_turn", "this seat has nothing to do now")
    legal = legal_actions(state, seat)
    types = {a.type for a in legal}
    phase = state.phase
    if phase == "emperor_selection":
        free_decline = "decline" in types and (state.declines == 0 or state.rules.attach_on_decline == "none")
        if free_decline:
            return Action("decline")
        if "accept" in types:
            return Action("accept")
        return Action("decline") if "decline" in types else legal[0]
    if phase == "call":
        calls = [a for a in legal if a.type == "call"]
        return calls[0] if calls else legal[0]  # callable cards are listed highest first
    if phase.endswith("_window"):
        return Action("stay")
    if state.table is not None:
        return PASS
    plays = [a for a in legal if a.type == "play"]
    return min(plays, key=lambda a: (len(a.cards), _lowest_value(state, seat, a)))


def _lowest_value(state: State, seat: int, action: Action) -> tuple:
    from .plays import values_of
    from .tricks import supers_for

    values = values_of(action.cards, supers_for(state, seat))
    return tuple(values)
