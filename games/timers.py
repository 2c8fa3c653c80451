"""One deadline task in flight per deal, not one per action.

Every action moves a deal's deadline, and sending a Celery task with that ETA on every move cost
about a sixth of a move's CPU (docs/scaling.md). The game row remembers instead when its one task is
due (`Game.timer_at`). A change that leaves the deadline at or after that time sends nothing: when
the task comes due it finds a later deadline and waits again, for it (games.services.game_timer_fire).
A new task is sent only when none is in flight, when the new deadline comes sooner than the task, or
when the task is overdue by more than GAMES_SWEEP_GRACE (lost with a broker); a task that finds
another one has replaced it does nothing. Whatever still slips through, the sweep applies.
"""

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from games.models import Game, GameStatus


def timer_arm(*, game: Game) -> datetime | None:
    """Inside the transaction holding the game's lock: the ETA of a task to send after commit (set
    as `game.timer_at`, which the caller's unit of work saves), or None when the task in flight
    covers the deadline (or there is no deadline). Called once per transaction, by
    games/actions.py `committed`."""
    if game.status != GameStatus.RUNNING or game.deadline is None:
        return None  # a task in flight will find nothing to do and clear timer_at
    due = game.timer_at
    lost_before = timezone.now() - timedelta(seconds=settings.GAMES_SWEEP_GRACE)
    if due is not None and lost_before < due <= game.deadline:
        return None
    game.timer_at = game.deadline
    return game.deadline


def timer_token(at: datetime) -> str:
    """How a task names the due time it was sent for (exact to the microsecond, as stored)."""
    return at.isoformat()
