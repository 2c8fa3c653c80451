"""Celery tasks of matchmaking, thin wrappers named after their services (docs/architecture.md)."""

from celery import shared_task

from matchmaking import matching


@shared_task(name="matchmaking.tickets_match", ignore_result=True)
def tickets_match() -> int:
    # Safe to overlap or repeat: each run locks the tickets it seats (skip_locked), so a late or
    # duplicated run only finds fewer tickets. On beat every MATCHMAKING_INTERVAL seconds.
    return matching.tickets_match()
