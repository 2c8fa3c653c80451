"""托管 auto-play (docs/rules.md §5): the default answer for a seat that timed out or handed over.

Emperor selection: `decline` where declining is free, else `accept` if able, else `decline`;
never `transfer` or `solo`. Guard call: the highest callable card. Windows: `stay`. Play: the
leader plays his smallest legal single card (a must-last hand plays what it must), a follower passes.
"""

from __future__ import annotations

from .machine import legal_actions, to_act
from .plays import values_of
from .state import ACCEPT, DECLINE, PASS, STAY, WINDOW_PHASES, Action, ActionType, IllegalAction, Phase, State
from .tricks import supers_for


def trustee_action(state: State, seat: int) -> Action:
    """The docs/rules.md §5 default answer for `seat` now."""
    if seat not in to_act(state):
        raise IllegalAction("not_your_turn", "this seat has nothing to do now")
    legal = legal_actions(state, seat)
    types = {a.type for a in legal}
    phase = state.phase
    if phase == Phase.EMPEROR_SELECTION:
        free_decline = ActionType.DECLINE in types and (state.declines == 0
                                                        or state.rules.attach_on_decline == "none")
        if free_decline:
            return DECLINE
        if ActionType.ACCEPT in types:
            return ACCEPT
        return DECLINE if ActionType.DECLINE in types else legal[0]
    if phase == Phase.CALL:
        calls = [a for a in legal if a.type == ActionType.CALL]
        return calls[0] if calls else legal[0]  # callable cards are listed highest first
    if phase in WINDOW_PHASES:
        return STAY
    if state.table is not None:
        return PASS
    plays = [a for a in legal if a.type == ActionType.PLAY]
    # The smallest single when there is one (a leader's usual case): only singles are compared, not
    # the thousands of plays a laowang leader may have; else the smallest play a must-last hand has.
    singles = [a for a in plays if len(a.cards) == 1] or plays
    supers = supers_for(state, seat)
    return min(singles, key=lambda a: (len(a.cards), tuple(values_of(a.cards, supers))))
