"""Celery tasks of accounts: webhook delivery (accounts/webhooks/services.py), thin and idempotent.

A delivery task re-claims its message and does nothing unless it is pending and due, so running it
twice (`acks_late`, a task lost with its worker and run again, the sweep) sends at most once per due
attempt."""

from celery import shared_task

from accounts.webhooks import services
from config.celery import TASK_SAFE_TO_REPEAT


@shared_task(name="accounts.webhook_message_deliver", **TASK_SAFE_TO_REPEAT)
def webhook_message_deliver(*, message_id: int) -> bool:
    return services.webhook_message_deliver(message_id=message_id)


@shared_task(name="accounts.webhooks_sweep", **TASK_SAFE_TO_REPEAT)
def webhooks_sweep() -> int:
    return services.webhooks_sweep()
