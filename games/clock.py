"""Time the service was unavailable is not charged to players (docs/client-guide.md "Timers").

The turn timers run on the worker, sent by the beat's sweep and by each deal's deadline task. While
the worker or the beat is stopped, or the database is unreachable, no deadline is applied; when they
return, every deadline that passed meanwhile would be applied at once, in a burst: seats on 托管,
tables dissolved by an outage that no player caused. Instead, each run of the timers (the sweep,
every deadline task) first ticks this clock, one row (`ServiceHeartbeat` "timers"). A tick that finds
the previous one older than GAMES_OUTAGE_AFTER seconds knows the timers stood still since then: before
any deadline is applied, it moves every running deal's deadline on by the time lost, so each prompt
has what it had left when the timers stopped, and sends the deadline tasks for the new times.

A tick runs in its own transaction, before the caller locks any game: it may lock many games (one
UPDATE), and a caller holding one game's row while waiting for this row could deadlock with it.
"""

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from games import scheduling
from games.models import Game, GameStatus, ServiceHeartbeat
from infra import commit

logger = logging.getLogger(__name__)

TIMERS = "timers"
# A tick writes the row at most this often: the timers' tasks tick it many times a second under load.
REFRESH = timedelta(seconds=1)


def timers_clock_tick(*, now: datetime | None = None) -> timedelta | None:
    """Record that the timers are running; first, if they stood still for more than
    GAMES_OUTAGE_AFTER seconds, move every running deal's deadline on by the time lost. Returns the
    time lost when it did so, else None."""
    now = now or timezone.now()
    stalled_after = timedelta(seconds=settings.GAMES_OUTAGE_AFTER)
    last = ServiceHeartbeat.objects.filter(name=TIMERS).values_list("at", flat=True).first()
    if last is not None and last >= now - REFRESH:
        return None  # ticked within the last second
    if last is not None and last >= now - stalled_after:
        ServiceHeartbeat.objects.filter(name=TIMERS, at__lt=now).update(at=now)
        return None
    try:
        with transaction.atomic():
            heartbeat, created = ServiceHeartbeat.objects.select_for_update().get_or_create(
                name=TIMERS, defaults={"at": now}
            )
            if created or heartbeat.at >= now - stalled_after:
                return None  # the first tick ever, or another run has just caught up
            lost = now - heartbeat.at
            moved = _deadlines_move(since=heartbeat.at, lost=lost)
            heartbeat.at = now
            heartbeat.save(update_fields=["at"])
    except IntegrityError:
        return None  # two first ticks at once: the other one created the row
    # A warning only when deals were moved: a development server restarted after a pause has none.
    logger.log(
        logging.WARNING if moved else logging.INFO,
        "turn timers resumed after %.1f s: the deadlines of %d running deals moved on by that much",
        lost.total_seconds(),
        len(moved),
        extra={"lost_seconds": round(lost.total_seconds(), 1), "deals": len(moved)},
    )
    return lost


def _deadlines_move(*, since: datetime, lost: timedelta) -> list[tuple[int, datetime]]:
    """Inside the tick's transaction: every running deal whose deadline had not passed when the timers
    stopped (give or take the sweep's grace) gets `lost` more; its deadline task is sent after commit
    for the new time (the task in flight for the old one finds it replaced: games/timers.py)."""
    grace = timedelta(seconds=settings.GAMES_SWEEP_GRACE)
    stopped = Game.objects.filter(status=GameStatus.RUNNING, deadline__gte=since - grace)
    ids = list(stopped.values_list("pk", flat=True))
    if not ids:
        return []
    # One statement; every right-hand side reads the row as it was, so both get the old deadline + lost.
    Game.objects.filter(pk__in=ids, status=GameStatus.RUNNING).update(
        deadline=F("deadline") + lost, timer_at=F("deadline") + lost
    )
    moved = list(Game.objects.filter(pk__in=ids, status=GameStatus.RUNNING).values_list("pk", "timer_at"))

    def send() -> None:
        for game_id, at in moved:
            scheduling.game_timer_schedule(game_id=game_id, at=at)

    commit.on_commit(send)
    return moved
