"""Tasks for the real-worker shutdown test (`celery worker -I tests.ops.worker_tasks`).

Each appends a line "<name> <pid>" to a file when it completes, so a test can tell that a task ran,
how often, and in which worker process.
"""

import logging
import os
import time

from celery import shared_task

logger = logging.getLogger(__name__)

_LIKE_OURS = {"acks_late": True, "reject_on_worker_lost": True, "ignore_result": True}


def _done(path: str, name: str) -> None:
    with open(path, "a") as out:
        out.write(f"{name} {os.getpid()}\n")


@shared_task(name="tests.ops.slow", **_LIKE_OURS)
def slow(*, path: str, name: str, seconds: float, game_id: int | None = None) -> None:
    logger.warning("slow task %s started", name)
    time.sleep(seconds)
    _done(path, name)


@shared_task(name="tests.ops.fails", **_LIKE_OURS)
def fails(*, game_id: int) -> None:
    raise RuntimeError("this task always fails")
