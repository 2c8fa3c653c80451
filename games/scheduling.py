"""Sending the deal tasks (games/tasks.py) after a commit, by name.

The tasks wrap the services (games/services.py), which build on games/actions.py, which asks for
the tasks after each commit: sending them by name through the Celery app (`send_task`, its public
API) keeps that a one-way dependency. A failed send only delays a game until its deadline or the
beat sweep finds it, so each function logs and goes on.
"""

import logging
from datetime import datetime

from celery import current_app
from django.conf import settings

from games import timers

logger = logging.getLogger(__name__)


def game_timer_schedule(*, game_id: int, at: datetime) -> None:
    """The deal's deadline task, due at `at` (games/timers.py). If it is lost, the next action after
    GAMES_SWEEP_GRACE sends another, and the sweep applies a deadline that passed meanwhile."""
    try:
        current_app.send_task(
            "games.game_timer_fire", kwargs={"game_id": game_id, "at": timers.timer_token(at)}, eta=at
        )
    except Exception:  # noqa: BLE001
        logger.warning("deadline task for game %s at %s not scheduled", game_id, at, exc_info=True)


def game_autoplay_schedule(*, game_id: int, version: int) -> None:
    """Go on with a chain of trustee actions that one transaction left unfinished. If this is lost, the
    prompt's deadline passes and the timer or the sweep goes on with it."""
    try:
        current_app.send_task("games.game_trustee_autoplay", kwargs={"game_id": game_id, "version": version})
    except Exception:  # noqa: BLE001
        logger.warning("auto-play task for game %s v%s not scheduled", game_id, version, exc_info=True)


def game_bot_schedule(*, game_id: int, version: int, delay: float) -> None:
    """The prompted bot seats act after `delay` seconds. If this is lost, the deadline acts for them
    (托管) and the next prompt schedules the bots again."""
    try:
        current_app.send_task(
            "games.game_bots_act", kwargs={"game_id": game_id, "version": version}, countdown=delay
        )
    except Exception:  # noqa: BLE001
        logger.warning("bot task for game %s v%s not scheduled", game_id, version, exc_info=True)


def game_ratings_schedule(*, game_id: int) -> None:
    """After a scored deal's commit. A lost task is made good by games_ratings_sweep."""
    try:
        current_app.send_task("games.game_ratings_update", kwargs={"game_id": game_id})
    except Exception:  # noqa: BLE001
        logger.warning("rating task for game %s not scheduled", game_id, exc_info=True)


def deal_end_schedule(*, game_id: int) -> None:
    """After the commit that finished a deal: its table's deal-end step (matchmaking's task, named by
    the GAMES_DEAL_END_TASK setting: games does not import the app that owns tables). A lost task
    is made good by that app's beat sweep, which takes every finished deal still `table_pending`."""
    try:
        current_app.send_task(settings.GAMES_DEAL_END_TASK, kwargs={"game_id": game_id})
    except Exception:  # noqa: BLE001
        logger.warning("deal-end task for game %s not scheduled", game_id, exc_info=True)
