"""What each viewpoint may see (docs/rules.md §1 "Visibility", docs/client-guide.md §3): one function per
viewpoint.

Views are built field by field from what that viewpoint may know, never by deleting secrets
from the state. Roles: everyone knows the emperor; a hidden guard or hidden solo shows only to
its holder until revealed; a seat that knows the teams (the guard, the soloist) sees them all.
"""

from __future__ import annotations

from .machine import legal_actions, to_act
from .state import ENDED_PHASES, Phase, State, Tribute


def true_roles(state: State) -> list[str | None]:
    if state.emperor is None:
        return [None] * 5
    roles: list[str | None] = ["commoner"] * 5
    roles[state.emperor] = "soloist" if state.solo else "emperor"
    if state.guard is not None and not state.solo:
        roles[state.guard] = "guard"
    return roles


def _teams_public(state: State) -> bool:
    if state.solo:
        return state.solo_public
    return state.guard is not None and state.guard_public


def known_roles(state: State, viewer: int | None) -> list[str | None]:
    truth = true_roles(state)
    if state.emperor is None:
        return truth
    if _teams_public(state):
        return truth
    known: list[str | None] = [None] * 5
    known[state.emperor] = "emperor"
    for seat, declaration in state.declarations:
        if declaration == "rebel":
            known[seat] = "commoner"  # only commoners can rebel, and declarations are public
    if viewer is not None:
        own = truth[viewer]
        if own in ("guard", "soloist"):
            return truth
        known[viewer] = own
    return known


def _counts(state: State) -> list:
    limit = state.rules.hide_counts_above
    counts = [len(h) for h in state.hands]
    if limit is None:
        return counts
    return [n if n <= limit else f">{limit}" for n in counts]


def _card_counts(state: State) -> list[dict]:
    """`counts` with one type (docs/client-guide.md §3): `at_least` is the count itself where it is
    shown (`exact`), the first hidden number where the preset hides it (laowang: 11 for ">10")."""
    limit = state.rules.hide_counts_above
    counts = [len(h) for h in state.hands]
    return [
        {"at_least": n, "exact": True} if limit is None or n <= limit
        else {"at_least": limit + 1, "exact": False}
        for n in counts
    ]


def _public_fields(state: State, roles: list) -> dict:
    table = state.table
    window = state.window
    solo = None
    if state.solo == "open" or (state.solo and state.solo_public):
        solo = state.solo
    view = {
        "preset": state.rules.name,
        "options": dict(state.rules.options),
        "phase": str(state.phase),
        "start_seat": state.start_seat,
        "counts": _counts(state),
        "card_counts": _card_counts(state),
        "roles": roles,
        "emperor": state.emperor,
        "candidate": state.candidate,
        "called_card": state.called_card,
        "solo": solo,
        "window": {"kind": str(window.kind), "asked": list(window.asked)} if window else None,
        "declarations": [{"seat": s, "type": t} for s, t in state.declarations],
        "table": {"seat": table.seat, "cards": list(table.cards), "bomb": table.bomb} if table else None,
        "passed": list(state.passed),
        "turn": state.turn,
        "places": list(state.places),
        "multiplier": state.multiplier,
        "pile": len(state.pile),
        "to_act": list(to_act(state)) if state.window is None else None,
    }
    if state.rules.candidate_mode == "turned":
        view["turned_card"] = state.turned_card
    return view


def seat_view(state: State, seat: int) -> dict:
    if not isinstance(seat, int) or not 0 <= seat < 5:
        raise ValueError("seat must be 0..4")
    view = _public_fields(state, known_roles(state, seat))
    view["seat"] = seat
    view["hand"] = list(state.hands[seat])
    if state.phase == Phase.EMPEROR_SELECTION and seat == state.candidate:
        view["pile_cards"] = list(state.pile)
    if state.solo == "hidden" and seat == state.emperor:
        view["solo"] = "hidden"
    view["legal_actions"] = [a.to_dict() for a in legal_actions(state, seat)]
    return view


def bot_view(state: State, seat: int) -> dict:
    """What a bot is given (docs/bots.md): the seat view plus `plays`, every play of this deal so far
    as [seat, cards], in order: the public log a client of that seat is shown as `play` events."""
    view = seat_view(state, seat)
    view["plays"] = [[s, list(a.cards)] for s, a in state.log if a.type == "play"]
    return view


def public_view(state: State) -> dict:
    return _public_fields(state, known_roles(state, None))


def final_view(state: State) -> dict:
    if state.phase not in ENDED_PHASES:
        raise ValueError("the deal is not over")
    view = _everything(state)
    view["scores"] = list(state.scores)
    view["tribute"] = state.tribute_owed.to_json()
    view["next_start_seat"] = state.next_start_seat
    view["void"] = state.phase == Phase.VOID
    return view


def aborted_view(state: State) -> dict:
    """The final view of a deal ended from outside before its end (a moderator's abort): everything
    final_view shows, as the deal stood (phase, places, the actions so far), and no result: scores
    0, no tribute, the same start seat, nobody to act."""
    if state.phase in ENDED_PHASES:
        raise ValueError("the deal is over: its view is final_view")
    view = _everything(state)
    view["to_act"] = []
    view["scores"] = [0] * 5
    view["tribute"] = Tribute(jokers=state.rules.tribute_jokers).to_json()
    view["next_start_seat"] = state.start_seat
    view["void"] = False
    return view


def _everything(state: State) -> dict:
    """The fields every viewpoint's secrets included: true roles, every hand as dealt, the seed, the log."""
    view = _public_fields(state, true_roles(state))
    view["solo"] = state.solo
    view["guard"] = state.guard
    view["hands"] = [list(h) for h in state.dealt]
    view["aside"] = list(state.aside)
    view["discards"] = [[seat, code] for seat, code in state.discards]
    view["seed"] = state.seed
    view["actions"] = [[seat, action.to_dict()] for seat, action in state.log]
    view["counts"] = [len(h) for h in state.hands]
    view["card_counts"] = [{"at_least": len(h), "exact": True} for h in state.hands]
    return view
