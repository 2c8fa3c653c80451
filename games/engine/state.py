"""The game state value, actions and the engine's one error type (docs/engine.md).

A `State` is an immutable value: the engine builds a new one for every applied action and never
changes a state it has handed out (`evolve` copies, then the engine sets the changed fields on the
copy before anyone else sees it). Hidden truth (hands, the guard, a hidden solo, the seed) lives
here; what a seat may see is decided only in views.py.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from typing import NamedTuple

from .rules import RuleSet


class Phase(StrEnum):
    """The phases of a deal (docs/rules.md §2, docs/client-guide.md §3); a str enum, so views and JSON keep
    the strings."""

    EMPEROR_SELECTION = "emperor_selection"
    CALL = "call"
    SOLO_WINDOW = "solo_window"
    DECLARATION_WINDOW = "declaration_window"
    KICK_WINDOW = "kick_window"
    PLAY = "play"
    OVER = "over"
    VOID = "void"


class ActionType(StrEnum):
    """Action types (docs/rules.md §6)."""

    ACCEPT = "accept"
    DECLINE = "decline"
    TRANSFER = "transfer"
    SOLO = "solo"
    CALL = "call"
    REVEAL = "reveal"
    REBEL = "rebel"
    KICK = "kick"
    STAY = "stay"
    PLAY = "play"
    PASS = "pass"


class WindowKind(StrEnum):
    """The declaration windows, in the order they open (docs/rules.md §2.5)."""

    SOLO = "solo"
    DECLARATION = "declaration"
    KICK = "kick"


PHASES = tuple(Phase)
ACTION_TYPES = tuple(ActionType)
ENDED_PHASES = frozenset({Phase.OVER, Phase.VOID})
WINDOW_PHASE = {WindowKind.SOLO: Phase.SOLO_WINDOW, WindowKind.DECLARATION: Phase.DECLARATION_WINDOW,
                WindowKind.KICK: Phase.KICK_WINDOW}
WINDOW_PHASES = frozenset(WINDOW_PHASE.values())


class Action(NamedTuple):
    """One action: `Action(type, cards=(), card=None)`, immutable.

    A named tuple, not a frozen dataclass: a laowang leader's listing makes hundreds of plays, and
    a named tuple is built at half the cost (plays.py `play_action`). It keeps the dataclass's
    equality: equal only to another Action of the same fields, never to a plain tuple, and hashed
    as the tuple of its fields, as the dataclass was."""

    type: str
    cards: tuple[str, ...] = ()
    card: str | None = None

    # A tuple that is not an Action is unequal outright: left to the tuple's own comparison (by
    # returning NotImplemented), it would compare field by field. Anything else decides, as it did
    # with the dataclass (mock.ANY).
    def __eq__(self, other):
        if other.__class__ is Action:
            return tuple.__eq__(self, other)
        return False if isinstance(other, tuple) else NotImplemented

    def __ne__(self, other):
        if other.__class__ is Action:
            return tuple.__ne__(self, other)
        return True if isinstance(other, tuple) else NotImplemented

    __hash__ = tuple.__hash__  # defining __eq__ would otherwise leave the class unhashable

    def to_dict(self) -> dict:
        """The JSON shape of docs/client-guide.md §3 (`legal_actions`, final_view `actions`)."""
        return {"type": str(self.type), "cards": list(self.cards), "card": self.card}


PASS = Action(ActionType.PASS)
STAY = Action(ActionType.STAY)
ACCEPT = Action(ActionType.ACCEPT)
DECLINE = Action(ActionType.DECLINE)
TRANSFER = Action(ActionType.TRANSFER)
SOLO = Action(ActionType.SOLO)


class IllegalAction(Exception):
    """An action the rules forbid; `code` is one of docs/client-guide.md §7's stable codes."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class Window(NamedTuple):
    """A simultaneous declaration window (docs/rules.md §2.5): who is asked is public, answers are not."""

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


@dataclass(frozen=True, slots=True)
class Tribute:
    """The tribute the next deal hands over (final_view `tribute`): `gives` and `takes` are
    (seat, card count) pairs, takers in finishing order; `guard_middle` is the wuren guard who
    takes the middle card of three (docs/rules.md §3.4); `jokers` whether givers give jokers too."""

    gives: tuple[tuple[int, int], ...] = ()
    takes: tuple[tuple[int, int], ...] = ()
    guard_middle: int | None = None
    jokers: bool = False

    def to_json(self) -> dict:
        return {
            "gives": [list(pair) for pair in self.gives],
            "takes": [list(pair) for pair in self.takes],
            "guard_middle": self.guard_middle,
            "jokers": self.jokers,
        }

    @classmethod
    def from_json(cls, data: dict | None) -> Tribute:
        data = data or {}
        return cls(
            gives=tuple((int(seat), int(count)) for seat, count in data.get("gives", ())),
            takes=tuple((int(seat), int(count)) for seat, count in data.get("takes", ())),
            guard_middle=data.get("guard_middle"),
            jokers=bool(data.get("jokers", False)),
        )


@dataclass(slots=True, repr=False)
class State:
    """One deal. Treated as an immutable value: the machine changes only a copy made by `evolve`,
    before anyone else sees it."""

    rules: RuleSet
    seed: int
    start_seat: int
    hands: tuple[tuple[str, ...], ...]
    # The hands as dealt, after the pre-play exchanges (final_view `hands`).
    dealt: tuple[tuple[str, ...], ...]
    # Set-aside cards nobody holds yet (laowang keeps none: its BJ travels in `pile`).
    aside: tuple[str, ...] = ()
    # Penalty discards made before play (docs/rules.md §3.6, laowang 串牌): (seat, card) pairs, out of play.
    discards: tuple[tuple[int, str], ...] = ()
    phase: Phase = Phase.EMPEROR_SELECTION
    # Emperor selection (docs/rules.md §2.3): the seat asked now, how many declined, the travelling cards.
    candidate: int | None = None
    declines: int = 0
    pile: tuple[str, ...] = ()
    turned_card: str | None = None  # laowang: the card whose receiver was the first candidate
    transferred_by: int | None = None  # weihai 转让: the guard who handed over BJ*
    # Teams (docs/rules.md §1 "Teams"): solo is None, "open" or "hidden".
    emperor: int | None = None
    guard: int | None = None
    solo: str | None = None
    guard_public: bool = False
    solo_public: bool = False
    guard_declared: bool = False  # 明保 in the declaration window (opens the kick window)
    rebellion_succeeded: bool = False
    called_card: str | None = None
    # Codes that carry information (who holds them), so plays list them apart from their plain
    # twins: the marked cards and, once called, the called card.
    specials: frozenset[str] = frozenset()
    # Declaration windows (docs/rules.md §2.5) and the declarations made public when each closed.
    window: Window | None = None
    declarations: tuple[tuple[int, str], ...] = ()
    multiplier: int = 1
    # Play (docs/rules.md §1 "Turn flow").
    table: TablePlay | None = None
    passed: tuple[int, ...] = ()
    turn: int | None = None
    finish_order: tuple[int, ...] = ()
    places: tuple[int | None, ...] = (None,) * 5
    # Settlement (docs/rules.md §2.7).
    scores: tuple[int, ...] | None = None
    tribute_owed: Tribute | None = None
    next_start_seat: int | None = None
    log: tuple[tuple[int, Action], ...] = ()
    opening_events: tuple[dict, ...] = ()

    def evolve(self) -> State:
        """A copy for the machine to change (see `_copier`)."""
        return _copy(self)

    def __repr__(self) -> str:
        return f"<State {self.rules.name} phase={self.phase} actions={len(self.log)}>"


STATE_FIELDS = tuple(field.name for field in fields(State))


def _copier():
    """The copy `State.evolve` makes once per decision, generated from the fields as dataclasses
    generates `__init__`, but assigning each slot from the original: a third cheaper than passing
    every field through `__init__`, and no field can be left out."""
    lines = ["def copy(self):", "    new = _new(State)"]
    lines += [f"    new.{name} = self.{name}" for name in STATE_FIELDS]
    lines.append("    return new")
    namespace = {"_new": object.__new__, "State": State}
    exec("\n".join(lines), namespace)
    return namespace["copy"]


_copy = _copier()


def next_seat(seat: int, step: int = 1) -> int:
    return (seat + step) % 5
