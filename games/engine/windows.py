"""Declaration windows (docs/rules.md §2.5; weihai §3.1, lianzhong §3.2–3.3, campus §3.5, pagat §3.7).

Every asked seat answers privately and in any order; who is asked depends only on public facts,
and answers are events private to the answering seat until the window closes, when all
declarations become public together. Order: solo window, declaration window, kick window.
"""

from __future__ import annotations

from .state import (
    STAY,
    WINDOW_PHASE,
    Action,
    ActionType,
    IllegalAction,
    Phase,
    State,
    Window,
    WindowKind,
    next_seat,
)

_SOLO_CLAIM = Action(ActionType.SOLO)
_KICK = Action(ActionType.KICK)
_REVEAL = Action(ActionType.REVEAL)
_REBEL = Action(ActionType.REBEL)


def after_emperor_chosen(state: State, events: list[dict]) -> None:
    state.candidate = None
    _open_next(state, None, events)


def _open_next(state: State, closed: WindowKind | None, events: list[dict]) -> None:
    """Open the first window after `closed` that asks anyone, else start play."""
    order = tuple(WindowKind)
    start = order.index(closed) + 1 if closed else 0
    for kind in order[start:]:
        asked = _asked(state, kind)
        if asked:
            state.window = Window(kind, asked)
            state.phase = WINDOW_PHASE[kind]
            events.append({"type": "window_opened", "kind": str(kind), "asked": list(asked)})
            return
    state.window = None
    state.phase = Phase.PLAY
    state.turn = state.emperor
    events.append({"type": "play_started", "leader": state.emperor})


def _others(state: State) -> tuple[int, ...]:
    return tuple(s for s in range(5) if s != state.emperor)


def _kick_sides(state: State) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """weihai 踢: (commoners asked, emperor side asked), from public facts only (§3.1)."""
    commoners: tuple[int, ...] = ()
    emperor_side: tuple[int, ...] = ()
    if state.solo == "open" or state.guard_declared:
        side = {state.emperor} if state.solo else {state.emperor, state.guard}
        commoners = tuple(s for s in range(5) if s not in side)
    if state.rebellion_succeeded:
        emperor_side = (state.emperor,) if state.solo else tuple(sorted((state.emperor, state.guard)))
    return commoners, emperor_side


def _asked(state: State, kind: WindowKind) -> tuple[int, ...]:
    rules = state.rules
    if kind == WindowKind.SOLO:
        return _others(state) if rules.solo_window and state.solo != "open" else ()
    if kind == WindowKind.DECLARATION:
        return _others(state) if rules.declaration_window and state.solo != "open" else ()
    if not rules.kick_window:
        return ()
    commoners, emperor_side = _kick_sides(state)
    return tuple(sorted(set(commoners) | set(emperor_side)))


def window_actions(state: State, seat: int) -> list[Action]:
    window = state.window
    if window is None or seat not in window.asked or window.answered(seat):
        return []
    if window.kind == WindowKind.SOLO:
        return [_SOLO_CLAIM, STAY]
    if window.kind == WindowKind.KICK:
        return [_KICK, STAY]
    if seat == state.guard and not state.solo:
        return [_REVEAL, STAY]
    if state.rules.rebel_allowed:
        return [_REBEL, STAY]
    return [STAY]


def apply_answer(state: State, seat: int, action: Action, events: list[dict]) -> Action:
    """Record a seat's private answer on `state` (a fresh copy); returns it for the log."""
    window = state.window
    if seat not in window.asked or window.answered(seat):
        raise IllegalAction("not_your_turn", "this seat has no open question in this window")
    if action not in window_actions(state, seat):
        raise IllegalAction("not_allowed", f"{str(action.type)!r} is not an answer open to this seat")
    window = Window(window.kind, window.asked, window.answers + ((seat, str(action.type)),))
    state.window = window
    events.append({"type": "answer", "seat": seat, "kind": str(window.kind), "answer": str(action.type),
                   "private_to": [seat]})
    if not window.waiting():
        close_window(state, events)
    return action


def close_window(state: State, events: list[dict]) -> None:
    window = state.window
    declared = [(s, a) for s, a in sorted(window.answers) if a != ActionType.STAY]
    state.declarations = state.declarations + tuple(declared)
    kind = window.kind
    closing = {"type": "window_closed", "kind": str(kind),
               "declarations": [{"seat": s, "type": a} for s, a in declared]}
    if kind == WindowKind.SOLO:
        _resolve_solo(state, [s for s, _ in declared], closing)
    elif kind == WindowKind.DECLARATION:
        _resolve_declarations(state, declared, closing)
    else:
        _resolve_kicks(state, [s for s, _ in declared], closing)
    closing["multiplier"] = state.multiplier
    events.append(closing)
    _open_next(state, kind, events)


def _resolve_solo(state: State, claimants: list[int], closing: dict) -> None:
    """Several claims: the nearest to the emperor counting backwards (上家 direction) wins."""
    if not claimants:
        return
    for step in range(1, 5):
        seat = next_seat(state.emperor, -step)
        if seat in claimants:
            state.emperor = seat
            state.solo, state.solo_public, state.guard = "open", True, None
            state.guard_public = False
            closing["soloist"] = seat
            return


def _resolve_declarations(state: State, declared: list[tuple[int, str]], closing: dict) -> None:
    rules = state.rules
    revealed = any(a == ActionType.REVEAL for _, a in declared)
    rebels = [s for s, a in declared if a == ActionType.REBEL]
    doubled = False
    if revealed:
        state.guard_public = True
        state.guard_declared = True
        doubled = True
    if rules.declaration_doubling == "any":
        doubled = doubled or bool(rebels)
    elif len(rebels) >= 2:
        # 造反成功: doubles and forces the guard, or a hidden soloist, into the open (§3.1, §3.2).
        state.rebellion_succeeded = True
        doubled = True
        if state.solo:
            state.solo_public = True
        else:
            state.guard_public = True
        closing["rebellion"] = "succeeded"
    if doubled:
        state.multiplier *= 2  # 明保 and a successful rebellion double once together
    if state.guard_public and state.guard is not None:
        closing["guard"] = state.guard
    if state.solo and state.solo_public:
        closing["soloist"] = state.emperor


def _resolve_kicks(state: State, kickers: list[int], closing: dict) -> None:
    """A commoners' kick needs two kickers, an emperor-side kick one; each success doubles (§3.1 D)."""
    commoners, emperor_side = _kick_sides(state)
    successes = []
    if sum(1 for s in kickers if s in commoners) >= 2:
        successes.append("commoners")
    if any(s in emperor_side for s in kickers):
        successes.append("emperor_side")
    for _ in successes:
        state.multiplier *= 2
    closing["kicks_succeeded"] = successes
