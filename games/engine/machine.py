"""The rule machine's two verbs: `legal_actions` and `apply_action` (CONTRACT §1), dispatching on
the phase (RULES §2). Nothing else changes a game."""

from __future__ import annotations

from .selection import apply_call, apply_selection, call_actions, selection_actions
from .state import ACTION_TYPES, PHASE_ACTIONS, Action, IllegalAction, State
from .tricks import apply_play, play_actions
from .windows import apply_answer, window_actions


def to_act(state: State) -> tuple[int, ...]:
    """Seats that have a prompt now: the candidate, the emperor calling, the window's unanswered
    seats, or the seat to play."""
    phase = state.phase
    if phase == "play":
        return (state.turn,)
    if phase == "emperor_selection":
        return (state.candidate,)
    if phase == "call":
        return (state.emperor,)
    if state.window is not None:
        return state.window.waiting()
    return ()


def legal_actions(state: State, seat: int) -> list[Action]:
    phase = state.phase
    if phase == "play":
        return play_actions(state, seat) if seat == state.turn else []
    if phase == "emperor_selection":
        return selection_actions(state) if seat == state.candidate else []
    if phase == "call":
        return call_actions(state) if seat == state.emperor else []
    if state.window is not None:
        return window_actions(state, seat)
    return []


def apply_action(state: State, seat: int, action: Action) -> tuple[State, list[dict]]:
    """Apply one seat's action; raise IllegalAction (and change nothing) when the rules forbid it."""
    phase = state.phase
    if phase in ("over", "void"):
        raise IllegalAction("game_over", "the deal is over")
    if not isinstance(action, Action) or action.type not in ACTION_TYPES:
        raise IllegalAction("not_allowed", "unknown action type")
    if not isinstance(seat, int) or not 0 <= seat < 5:
        raise IllegalAction("not_your_turn", "no such seat")
    if action.type not in PHASE_ACTIONS[phase]:
        raise IllegalAction("wrong_phase", f"{action.type!r} is not an action of phase {phase!r}")
    if seat not in to_act(state):
        raise IllegalAction("not_your_turn", "this seat has nothing to do now")
    new = state.evolve()
    events: list[dict] = []
    if phase == "play":
        apply_play(new, seat, action, events)
        return new, events
    if phase == "emperor_selection":
        apply_selection(new, seat, action, events)
    elif phase == "call":
        if action not in call_actions(state) and action.type != "call":
            raise IllegalAction("not_allowed", f"{action.type!r} is not open to the emperor now")
        apply_call(new, seat, action, events)
    else:
        apply_answer(new, seat, action, events)
    new.log = new.log + ((seat, action),)
    return new, events
