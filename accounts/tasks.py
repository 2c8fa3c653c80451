"""Celery tasks of accounts: webhook delivery (accounts/webhooks/services.py), thin and idempotent.

A delivery task re-claims its message and does nothing unless it is pending and due, so running it
twice (`acks_late`, a task lost with its worker and run again, the sweep) sends at most once per due
attempt."""

from celery import shared_task

from accounts.push import delivery
from accounts.webhooks import services
from config.celery import TASK_SAFE_TO_REPEAT


@shared_task(name="accounts.webhook_message_deliver", **TASK_SAFE_TO_REPEAT)
def webhook_message_deliver(*, message_id: int) -> bool:
    return services.webhook_message_deliver(message_id=message_id)


@shared_task(name="accounts.webhooks_sweep", **TASK_SAFE_TO_REPEAT)
def webhooks_sweep() -> int:
    return services.webhooks_sweep()


@shared_task(name="push.entries_push", **TASK_SAFE_TO_REPEAT)
def entries_push(*, entries: list) -> int:
    """New feed entries of the pushable kinds (accounts/feed.py): at most once per device each."""
    return delivery.entries_push(entries=[tuple(pair) for pair in entries])


@shared_task(name="push.delivery_retry", **TASK_SAFE_TO_REPEAT)
def push_delivery_retry(*, delivery_id: int) -> str | None:
    return delivery.delivery_retry(delivery_id=delivery_id)


@shared_task(name="push.entries_drain", **TASK_SAFE_TO_REPEAT)
def push_entries_drain() -> int:
    """Every PUSH_DRAIN_SECONDS (beat): the entries the feed queued in Redis."""
    return delivery.entries_drain()


@shared_task(name="push.entries_sweep", **TASK_SAFE_TO_REPEAT)
def push_entries_sweep() -> int:
    """Every PUSH_SWEEP_SECONDS (beat): the entries whose hand-over to the worker was lost."""
    return delivery.entries_sweep()
