"""Ending a deal: settle scores and tribute (docs/rules.md §1 "End of a deal", §2.7), or void it."""

from __future__ import annotations

from .scoring import final_places, outcome_if_fixed, tribute_plan
from .state import Phase, State, Tribute


def settle_if_fixed(state: State, events: list[dict]) -> bool:
    outcome = outcome_if_fixed(state)
    if outcome is None:
        return False
    scores, tribute = outcome
    places = final_places(state)
    state.places = places
    state.scores = scores
    state.tribute_owed = tribute_plan(state, tribute, places)
    state.phase = Phase.OVER
    state.turn = None
    state.next_start_seat = next_start_seat(state)
    events.append({"type": "deal_over", "places": list(places), "scores": list(scores)})
    return True


def next_start_seat(state: State) -> int:
    """The previous emperor deals next (004); pagat moves on one seat; a void deal keeps it (§2.1 D)."""
    if state.phase == Phase.VOID or state.emperor is None:
        return state.start_seat
    if state.rules.start_seat_moves:
        return (state.start_seat + 1) % 5
    return state.emperor


def settle_void(state: State) -> None:
    state.phase = Phase.VOID
    state.candidate = None
    state.scores = (0, 0, 0, 0, 0)
    state.tribute_owed = Tribute(jokers=state.rules.tribute_jokers)
    state.next_start_seat = state.start_seat
