"""The end of a deal, as the table it belongs to reads it.

A finished deal is an outbox row (`Game.table_pending`, set in the transaction that finished it);
matchmaking takes it in a step of its own after the commit (docs/architecture.md "The end of a
deal"). This is the value that step reads (games.selectors.game_ended); games never calls
matchmaking.
"""

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DealEnded:
    """What the end of a deal tells the table it belongs to (a value, not a view dict)."""

    game_id: int
    table_id: int
    number: int
    void: bool
    unscored: bool
    aborted: bool
    trustee_seats: tuple[int, ...]  # seats on 托管 when it ended
    left_seats: tuple[int, ...]  # seats whose player left during it
    locked_seats: tuple[int, ...]  # seats on 托管 that may not come back (left, banned, >3 entries)
    setup: dict
    outcome: Any  # engine.DealOutcome, or None for an aborted deal
