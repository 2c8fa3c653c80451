"""Celery tasks of matchmaking, thin wrappers named after their services (docs/architecture.md)."""

from celery import shared_task

from config.celery import TASK_SAFE_TO_REPEAT
from matchmaking import matching, services


@shared_task(name="matchmaking.tickets_match", ignore_result=True)
def tickets_match() -> int:
    # Safe to overlap or repeat: each run locks the tickets it seats (skip_locked), so a late or
    # duplicated run only finds fewer tickets. On beat every MATCHMAKING_INTERVAL seconds.
    return matching.tickets_match()


# The deal's end and the next deal (services.py, docs/architecture.md "The end of a deal"): each
# step locks and checks what it finds, so a repeated or late task does nothing twice.
@shared_task(name="matchmaking.table_deal_end", **TASK_SAFE_TO_REPEAT)
def table_deal_end(*, game_id: int) -> bool:
    return services.table_deal_end(game_id=game_id)


@shared_task(name="matchmaking.table_deal_next", **TASK_SAFE_TO_REPEAT)
def table_deal_next(*, table_id: int) -> bool:
    return services.table_deal_next(table_id=table_id)


@shared_task(name="matchmaking.tables_deals_sweep", **TASK_SAFE_TO_REPEAT)
def tables_deals_sweep() -> int:
    return services.tables_deals_sweep()
