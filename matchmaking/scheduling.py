"""Sending matchmaking's deal tasks (matchmaking/tasks.py) after a commit.

A failed send only delays a table until the beat sweep (services.tables_deals_sweep) finds it, so
each function logs and goes on.
"""

import logging
from datetime import datetime

from celery import current_app

logger = logging.getLogger(__name__)


def table_deal_next_schedule(*, table_id: int, at: datetime) -> None:
    """The table's next deal, due at `at` (the pause between deals; at once when it is 0)."""
    try:
        current_app.send_task("matchmaking.table_deal_next", kwargs={"table_id": table_id}, eta=at)
    except Exception:  # noqa: BLE001
        logger.warning("next-deal task for table %s at %s not scheduled", table_id, at, exc_info=True)
