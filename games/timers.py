"""Turn deadlines (RULES §5, ARCHITECTURE.md "Time"): scheduling them, applying a passed one, the sweep.

A timer task carries the game id and the version it was scheduled for. It never trusts its own arrival
time: `game_deadline_expire` re-locks the game and acts only if the version is still the one it was
scheduled for and the stored deadline has passed, so a late, early, duplicated or redelivered task is
harmless. The sweep (Celery beat) applies deadlines whose task was lost: broker down, worker killed.
"""

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from config.api.errors import ApiError
from games import engine, selectors, services
from games.lock_objects import game_lock
from games.models import Event, Game, GameStatus

logger = logging.getLogger(__name__)


def game_timer_schedule(*, game_id: int, version: int, deadline: datetime) -> None:
    """Called after commit: a task at the deadline. A failed publish only delays the game until the sweep."""
    from games import tasks

    try:
        tasks.game_deadline_expire.apply_async(kwargs={"game_id": game_id, "version": version}, eta=deadline)
    except Exception:  # noqa: BLE001 - the sweep applies the deadline instead
        logger.warning("deadline task for game %s v%s not scheduled", game_id, version, exc_info=True)


def game_autoplay_schedule(*, game_id: int, version: int) -> None:
    """Called after commit: go on with a chain of trustee actions that one transaction left unfinished.
    If this is lost, the prompt's deadline passes and the timer or the sweep goes on with it."""
    from games import tasks

    try:
        tasks.game_trustee_autoplay.apply_async(kwargs={"game_id": game_id, "version": version})
    except Exception:  # noqa: BLE001
        logger.warning("auto-play task for game %s v%s not scheduled", game_id, version, exc_info=True)


def game_ratings_schedule(*, game_id: int) -> None:
    """Called after a scored deal's commit. A lost task is made good by games_ratings_sweep."""
    from games import tasks

    try:
        tasks.game_ratings_update.delay(game_id=game_id)
    except Exception:  # noqa: BLE001
        logger.warning("rating task for game %s not scheduled", game_id, exc_info=True)


def game_deadline_expire(*, game_id: int, version: int) -> bool:
    """Time out every seat still prompted at `version`: each goes on trustee and plays its default
    (engine.trustee_action) through the same path as a move. False when there was nothing to do."""
    with transaction.atomic():
        try:
            game = game_lock(game_id=game_id)
        except ApiError:
            return False
        if game.status != GameStatus.RUNNING or game.version != version or game.deadline is None:
            return False
        if game.deadline > timezone.now():
            # Early (a clock ahead of ours, or a broker that delivered before the ETA): ask again at
            # the deadline rather than leave it to the sweep.
            deadline = game.deadline
            transaction.on_commit(
                lambda: game_timer_schedule(game_id=game_id, version=version, deadline=deadline)
            )
            return False
        state = selectors.game_state(game=game)
        seats = engine.to_act(state)
        if not seats:
            return False
        if not all(game.trustee[seat] for seat in seats):
            # (All on trustee already: an auto-play chain whose continuation was lost, not a timeout.)
            deadline = game.deadline.isoformat().replace("+00:00", "Z")
            timeout = {"type": "timeout", "deadline": deadline}
            # (last_seq is saved with the trustee switch below.)
            Event.objects.bulk_create(services._events_rows(game=game, events=[timeout], action=None))
        for seat in seats:
            if not game.trustee[seat]:
                services._trustee_switch(game=game, seat=seat, on=True)
        services._trustee_autoplay(game=game, state=state)
        transaction.on_commit(lambda: services._after_action_committed(game))
    return True


def game_trustee_autoplay(*, game_id: int, version: int) -> bool:
    """Seats on trustee that are prompted at `version` act now (the next MAX_AUTOPLAY_ACTIONS of them)."""
    with transaction.atomic():
        try:
            game = game_lock(game_id=game_id)
        except ApiError:
            return False
        if game.status != GameStatus.RUNNING or game.version != version:
            return False
        services._trustee_autoplay(game=game, state=selectors.game_state(game=game))
        if game.version == version:
            return False
        transaction.on_commit(lambda: services._after_action_committed(game))
    return True


def games_deadlines_sweep(*, grace: float | None = None, limit: int = 500) -> int:
    """Apply deadlines that passed more than `grace` seconds ago (their task was lost or is late);
    returns how many games it moved on."""
    grace = settings.GAMES_SWEEP_GRACE if grace is None else grace
    cutoff = timezone.now() - timedelta(seconds=grace)
    overdue = list(
        Game.objects.filter(status=GameStatus.RUNNING, deadline__lt=cutoff)
        .order_by("deadline")
        .values_list("pk", "version")[:limit]
    )
    return sum(game_deadline_expire(game_id=game_id, version=version) for game_id, version in overdue)
