"""Celery tasks of tournaments: the beat sweep, and the step sent when a tournament table closes."""

import logging

from celery import current_app, shared_task

from infra import commit
from matchmaking.models import TableStatus
from tournaments import services
from tournaments.models import RoundTable

logger = logging.getLogger(__name__)

CLOSED = (TableStatus.FINISHED, TableStatus.DISSOLVED)


@shared_task(name="tournaments.sweep", ignore_result=True)
def tournaments_sweep() -> int:
    """Beat (TOURNAMENTS_SWEEP_SECONDS): step every running tournament and every registering one whose
    `starts_at` has come. It also makes good a step task that was lost."""
    due = services.tournaments_due()
    for tournament_id in due:
        services.tournament_step(tournament_id=tournament_id)
    return len(due)


@shared_task(name="tournaments.step", ignore_result=True)
def tournament_step(tournament_id: int) -> None:
    services.tournament_step(tournament_id=tournament_id)


def table_saved(sender, instance, update_fields=None, **kwargs) -> None:
    """post_save of matchmaking's Table: when one of a tournament's tables closes, its tournament is
    stepped after the commit (the round may be over), without waiting for the sweep."""
    if instance.status not in CLOSED or (update_fields is not None and "status" not in update_fields):
        return
    tournament_id = (
        RoundTable.objects.filter(table_id=instance.pk).values_list("round__tournament_id", flat=True).first()
    )
    if tournament_id is not None:
        commit.on_commit(lambda: step_schedule(tournament_id=tournament_id))


def step_schedule(*, tournament_id: int) -> None:
    """Send the step by name (as games/scheduling.py); a lost one is made good by the sweep."""
    try:
        current_app.send_task("tournaments.step", kwargs={"tournament_id": tournament_id})
    except Exception:  # noqa: BLE001
        logger.warning("step task for tournament %s not sent", tournament_id, exc_info=True)
