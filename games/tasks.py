"""Celery tasks, thin wrappers named after the services they call.

Each task is idempotent (the service re-locks and checks the version, or keeps a unique row per deal),
so `acks_late` with `reject_on_worker_lost` is safe: a task lost with its worker runs again. They are
sent by name after commit (games/scheduling.py).
"""

from celery import shared_task

from config.celery import TASK_SAFE_TO_REPEAT
from games import services
from infra.api import idempotency


@shared_task(name="games.game_timer_fire", **TASK_SAFE_TO_REPEAT)
def game_timer_fire(*, game_id: int, at: str) -> bool:
    return services.game_timer_fire(game_id=game_id, at=at)


# Deadline tasks sent before games/timers.py (one per action, guarded by the version) still run.
@shared_task(name="games.game_deadline_expire", **TASK_SAFE_TO_REPEAT)
def game_deadline_expire(*, game_id: int, version: int) -> bool:
    return services.game_deadline_expire(game_id=game_id, version=version)


@shared_task(name="games.game_trustee_autoplay", **TASK_SAFE_TO_REPEAT)
def game_trustee_autoplay(*, game_id: int, version: int) -> bool:
    return services.game_trustee_autoplay(game_id=game_id, version=version)


@shared_task(name="games.game_bots_act", **TASK_SAFE_TO_REPEAT)
def game_bots_act(*, game_id: int, version: int) -> bool:
    return services.game_bots_act(game_id=game_id, version=version)


@shared_task(name="games.games_deadlines_sweep", **TASK_SAFE_TO_REPEAT)
def games_deadlines_sweep() -> int:
    return services.games_deadlines_sweep()


@shared_task(name="games.games_bots_sweep", **TASK_SAFE_TO_REPEAT)
def games_bots_sweep() -> int:
    return services.games_bots_sweep()


@shared_task(name="games.game_ratings_update", **TASK_SAFE_TO_REPEAT)
def game_ratings_update(*, game_id: int) -> bool:
    return services.game_ratings_update(game_id=game_id)


@shared_task(name="games.games_ratings_sweep", **TASK_SAFE_TO_REPEAT)
def games_ratings_sweep() -> int:
    return services.games_ratings_sweep()


# Retention of Idempotency-Key answers (infra/api/idempotency.py, docs/client-guide.md §6).
@shared_task(name="games.idempotency_keys_sweep", **TASK_SAFE_TO_REPEAT)
def idempotency_keys_sweep() -> int:
    return idempotency.idempotency_keys_sweep()
