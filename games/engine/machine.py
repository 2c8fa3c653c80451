"""The rule machine's two verbs: `legal_actions` and `apply_action` (docs/engine.md), dispatching on
the phase (docs/rules.md §2) through one table. Nothing else changes a game, and only `apply_action`
writes the action log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from .selection import apply_call, apply_selection, call_actions, selection_actions
from .state import ACTION_TYPES, Action, ActionType, IllegalAction, Phase, State
from .tricks import apply_play, play_actions
from .windows import apply_answer, window_actions


class PhaseMoves(NamedTuple):
    """What a phase allows: its action types, who is prompted, a seat's legal actions ([] unless
    prompted), and how an action is applied to a fresh copy (returning the action as the log
    records it)."""

    types: frozenset[str]
    prompted: Callable[[State], tuple[int, ...]]
    legal: Callable[[State, int], list[Action]]
    apply: Callable[[State, int, Action, list[dict]], Action]


def _window_waiting(state: State) -> tuple[int, ...]:
    return state.window.waiting()


def _nobody(state: State) -> tuple[int, ...]:
    return ()


def _nothing(state: State, seat: int) -> list[Action]:
    return []


def _ended(state: State, seat: int, action: Action, events: list[dict]) -> Action:
    raise IllegalAction("game_over", "the deal is over")


_KNOWN_TYPES = frozenset(ACTION_TYPES)  # a hashed look-up: apply_action checks it on every action

_WINDOW_MOVES = {
    Phase.SOLO_WINDOW: frozenset({ActionType.SOLO, ActionType.STAY}),
    Phase.DECLARATION_WINDOW: frozenset({ActionType.REVEAL, ActionType.REBEL, ActionType.STAY}),
    Phase.KICK_WINDOW: frozenset({ActionType.KICK, ActionType.STAY}),
}
_ENDED_MOVES = PhaseMoves(frozenset(), _nobody, _nothing, _ended)

MOVES: dict[Phase, PhaseMoves] = {
    Phase.EMPEROR_SELECTION: PhaseMoves(
        frozenset({ActionType.ACCEPT, ActionType.DECLINE, ActionType.TRANSFER, ActionType.SOLO}),
        lambda state: (state.candidate,),
        lambda state, seat: selection_actions(state) if seat == state.candidate else [], apply_selection),
    Phase.CALL: PhaseMoves(
        frozenset({ActionType.CALL, ActionType.SOLO}),
        lambda state: (state.emperor,),
        lambda state, seat: call_actions(state) if seat == state.emperor else [], apply_call),
    **{phase: PhaseMoves(types, _window_waiting, window_actions, apply_answer)
       for phase, types in _WINDOW_MOVES.items()},
    Phase.PLAY: PhaseMoves(
        frozenset({ActionType.PLAY, ActionType.PASS}), lambda state: (state.turn,),
        lambda state, seat: play_actions(state, seat) if seat == state.turn else [], apply_play),
    Phase.OVER: _ENDED_MOVES,
    Phase.VOID: _ENDED_MOVES,
}


def to_act(state: State) -> tuple[int, ...]:
    """Seats that have a prompt now: the candidate, the emperor calling, the window's unanswered
    seats, or the seat to play."""
    return MOVES[state.phase].prompted(state)


def legal_actions(state: State, seat: int) -> list[Action]:
    return MOVES[state.phase].legal(state, seat)


def apply_action(state: State, seat: int, action: Action) -> tuple[State, list[dict]]:
    """Apply one seat's action; raise IllegalAction (and change nothing) when the rules forbid it."""
    moves = MOVES[state.phase]
    if not moves.types:
        raise IllegalAction("game_over", "the deal is over")
    if not isinstance(action, Action) or action.type not in _KNOWN_TYPES:
        raise IllegalAction("not_allowed", "unknown action type")
    if not isinstance(seat, int) or not 0 <= seat < 5:
        raise IllegalAction("not_your_turn", "no such seat")
    if action.type not in moves.types:
        raise IllegalAction("wrong_phase", f"{action.type!r} is not an action of phase {str(state.phase)!r}")
    if seat not in moves.prompted(state):
        raise IllegalAction("not_your_turn", "this seat has nothing to do now")
    new = state.evolve()
    events: list[dict] = []
    recorded = moves.apply(new, seat, action, events)
    new.log = new.log + ((seat, recorded),)
    return new, events
