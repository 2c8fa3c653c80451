"""The end of a deal, as the table it belongs to hears of it.

Games do not import matchmaking: the table's deal loop (matchmaking) subscribes here once, at
start-up (MatchmakingConfig.ready), and games/actions.py publishes each finished deal to it, inside
the transaction that finished it.
"""

from collections.abc import Callable
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
    setup: dict
    outcome: Any  # engine.DealOutcome, or None for an aborted deal


_subscriber: Callable[[DealEnded], None] | None = None


def deal_end_subscribe(handler: Callable[[DealEnded], None]) -> None:
    """Register the owner of the deal-end → next-deal flow. One subscriber: the flow has one owner."""
    global _subscriber
    _subscriber = handler


def deal_end_publish(ended: DealEnded) -> None:
    if _subscriber is not None:
        _subscriber(ended)
