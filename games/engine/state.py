"""The game state value, actions and the engine's one error type (CONTRACT §1).

A `State` is an immutable value: the engine builds a new one for every applied action and never
changes a state it has handed out (`evolve` copies, then the engine sets the changed fields on the
copy before anyone else sees it). Hidden truth (hands, the guard, a hidden solo, the seed) lives
here; what a seat may see is decided only in views.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .rules import RuleSet

PHASES = ("emperor_selection", "call", "solo_window", "declaration_window", "kick_window", "play", "over",
          "void")
ACTION_TYPES = ("accept", "decline", "transfer", "solo", "call", "reveal", "rebel", "kick", "stay", "play",
                "pass")
PHASE_ACTIONS = {
    "emperor_selection": frozenset({"accept", "decline", "transfer", "solo"}),
    "call": frozenset({"call", "solo"}),
    "solo_window": frozenset({"solo", "stay"}),
    "declaration_window": frozenset({"reveal", "rebel", "stay"}),
    "kick_window": frozenset({"kick", "stay"}),
    "play": frozenset({"play", "pass"}),
    "over": frozenset(),
    "void": frozenset(),
}
WINDOW_PHASE = {"solo": "solo_window", "declaration": "declaration_window", "kick": "kick_window"}


@dataclass(frozen=True, slots=True)
class Action:
    type: str
    cards: tuple[str, ...] = ()
    card: str | None = None


PASS = Action("pass")


class IllegalAction(Exception):
    """An action the rules forbid; `code` is one of CONTRACT §3's stable codes."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class Window(NamedTuple):
    """A simultaneous declaration window (RULES §2.5): who is asked is public, answers are not."""

    kind: str
    asked: tuple[int, ...]
    answers: tuple[tuple[int, str], ...] = ()

    def answered(self, seat: int) -> bool:
        return any(s == seat for s, _ in self.answers)

    def waiting(self) -> tuple[int, ...]:
        done = {s for s, _ in self.answers}
        return tuple(s for s in self.asked if s not in done)


class TablePlay(NamedTuple):
    """The play to beat: its seat, codes, values (as judged when played) and whether it is a bomb.
    (Named tuples: created on every play, and much cheaper to build than frozen dataclasses.)"""

    seat: int
    cards: tuple[str, ...]
    values: tuple[int, ...]
    bomb: bool = False


class State:
    """One deal. Fields are documented where new_deal sets them (deal.py)."""

    rules: RuleSet

    def evolve(self) -> State:
        new = object.__new__(State)
        new.__dict__.update(self.__dict__)
        return new

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<State {self.rules.name} phase={self.phase} actions={len(self.log)}>"


def next_seat(seat: int, step: int = 1) -> int:
    return (seat + step) % 5
