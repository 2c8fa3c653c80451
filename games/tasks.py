"""Celery tasks, thin wrappers named after the services they call (STYLE.md 8, 13), and their scheduling.

Each task is idempotent (the service re-locks and checks the version, or keeps a unique row per deal),
so `acks_late` with `reject_on_worker_lost` is safe: a task lost with its worker runs again. The
`*_schedule` functions are called after commit (games/actions.py); a failed publish only delays a
game until the beat sweep finds it, so they log and go on.
"""

import logging
from datetime import datetime

from celery import shared_task

from games import services, timers

logger = logging.getLogger(__name__)

_SAFE_TO_REPEAT = {"acks_late": True, "reject_on_worker_lost": True, "ignore_result": True}


@shared_task(name="games.game_timer_fire", **_SAFE_TO_REPEAT)
def game_timer_fire(*, game_id: int, at: str) -> bool:
    return services.game_timer_fire(game_id=game_id, at=at)


# Deadline tasks sent before games/timers.py (one per action, guarded by the version) still run.
@shared_task(name="games.game_deadline_expire", **_SAFE_TO_REPEAT)
def game_deadline_expire(*, game_id: int, version: int) -> bool:
    return services.game_deadline_expire(game_id=game_id, version=version)


@shared_task(name="games.game_trustee_autoplay", **_SAFE_TO_REPEAT)
def game_trustee_autoplay(*, game_id: int, version: int) -> bool:
    return services.game_trustee_autoplay(game_id=game_id, version=version)


@shared_task(name="games.game_bots_act", **_SAFE_TO_REPEAT)
def game_bots_act(*, game_id: int, version: int) -> bool:
    return services.game_bots_act(game_id=game_id, version=version)


@shared_task(name="games.games_deadlines_sweep", **_SAFE_TO_REPEAT)
def games_deadlines_sweep() -> int:
    return services.games_deadlines_sweep()


@shared_task(name="games.game_ratings_update", **_SAFE_TO_REPEAT)
def game_ratings_update(*, game_id: int) -> bool:
    return services.game_ratings_update(game_id=game_id)


@shared_task(name="games.games_ratings_sweep", **_SAFE_TO_REPEAT)
def games_ratings_sweep() -> int:
    return services.games_ratings_sweep()


def game_timer_schedule(*, game_id: int, at: datetime) -> None:
    """The deal's deadline task, due at `at` (games/timers.py). If it is lost, the next action after
    GAMES_SWEEP_GRACE sends another, and the sweep applies a deadline that passed meanwhile."""
    try:
        game_timer_fire.apply_async(kwargs={"game_id": game_id, "at": timers.timer_token(at)}, eta=at)
    except Exception:  # noqa: BLE001
        logger.warning("deadline task for game %s at %s not scheduled", game_id, at, exc_info=True)


def game_autoplay_schedule(*, game_id: int, version: int) -> None:
    """Go on with a chain of trustee actions that one transaction left unfinished. If this is lost, the
    prompt's deadline passes and the timer or the sweep goes on with it."""
    try:
        game_trustee_autoplay.apply_async(kwargs={"game_id": game_id, "version": version})
    except Exception:  # noqa: BLE001
        logger.warning("auto-play task for game %s v%s not scheduled", game_id, version, exc_info=True)


def game_bot_schedule(*, game_id: int, version: int, delay: float) -> None:
    """The prompted bot seats act after `delay` seconds. If this is lost, the deadline acts for them
    (托管) and the next prompt schedules the bots again."""
    try:
        game_bots_act.apply_async(kwargs={"game_id": game_id, "version": version}, countdown=delay)
    except Exception:  # noqa: BLE001
        logger.warning("bot task for game %s v%s not scheduled", game_id, version, exc_info=True)


def game_ratings_schedule(*, game_id: int) -> None:
    """After a scored deal's commit. A lost task is made good by games_ratings_sweep."""
    try:
        game_ratings_update.delay(game_id=game_id)
    except Exception:  # noqa: BLE001
        logger.warning("rating task for game %s not scheduled", game_id, exc_info=True)
