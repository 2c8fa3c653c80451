"""What a finished deal leaves behind, as a value the service layer reads (docs/rules.md §1 "End of a deal",
"Teams"; §2.7 settlement; the preset's scoring and tribute of §3).

Matchmaking (running scores, the next deal) and ratings read a `DealOutcome` instead of picking
fields out of the final_view dict; `new_deal(context=...)` takes either. Its JSON form keeps the
final_view's key names for the fields both have (`tribute`, `next_start_seat`, ...), so a stored
outcome dict also works as a `context`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .scoring import team_of
from .state import ENDED_PHASES, Phase, State, Tribute
from .views import true_roles


@dataclass(frozen=True, slots=True)
class DealOutcome:
    """The settled facts of one deal. `emperor_side` is the emperor and the guard (2 v 3) or the
    soloist alone (1 v 4), as the scoring of docs/rules.md §3 counts them; `other_side` the remaining seats.
    A void deal has no sides (both empty), no emperor and all scores 0."""

    preset: str
    void: bool
    roles: tuple[str | None, ...]
    emperor: int | None
    guard: int | None
    solo: str | None
    emperor_side: tuple[int, ...]
    other_side: tuple[int, ...]
    places: tuple[int | None, ...]
    scores: tuple[int, ...]
    multiplier: int
    tribute: Tribute
    next_start_seat: int

    def to_json(self) -> dict:
        return {
            "preset": self.preset,
            "void": self.void,
            "roles": list(self.roles),
            "emperor": self.emperor,
            "guard": self.guard,
            "solo": self.solo,
            "emperor_side": list(self.emperor_side),
            "other_side": list(self.other_side),
            "places": list(self.places),
            "scores": list(self.scores),
            "multiplier": self.multiplier,
            "tribute": self.tribute.to_json(),
            "next_start_seat": self.next_start_seat,
        }

    @classmethod
    def from_json(cls, data: dict) -> DealOutcome:
        return cls(
            preset=data["preset"],
            void=bool(data["void"]),
            roles=tuple(data["roles"]),
            emperor=data["emperor"],
            guard=data["guard"],
            solo=data["solo"],
            emperor_side=tuple(data["emperor_side"]),
            other_side=tuple(data["other_side"]),
            places=tuple(data["places"]),
            scores=tuple(data["scores"]),
            multiplier=int(data["multiplier"]),
            tribute=Tribute.from_json(data["tribute"]),
            next_start_seat=int(data["next_start_seat"]),
        )


def deal_outcome(state: State) -> DealOutcome:
    """The outcome of a deal in phase over or void; ValueError for a deal still running."""
    if state.phase not in ENDED_PHASES:
        raise ValueError("the deal is not over")
    void = state.phase == Phase.VOID
    emperor_side: tuple[int, ...] = ()
    if not void:
        emperor, partners = team_of(state)
        emperor_side = (emperor, *partners)
    return DealOutcome(
        preset=state.rules.name,
        void=void,
        roles=tuple(true_roles(state)),
        emperor=state.emperor,
        guard=state.guard,
        solo=state.solo,
        emperor_side=emperor_side,
        other_side=tuple(s for s in range(5) if s not in emperor_side) if not void else (),
        places=tuple(state.places),
        scores=tuple(state.scores),
        multiplier=state.multiplier,
        tribute=state.tribute_owed,
        next_start_seat=state.next_start_seat,
    )
