"""Celery tasks of accounts: webhook delivery (accounts/webhooks/services.py), thin and idempotent.

A delivery task re-claims its message and does nothing unless it is pending and due, so running it
twice (`acks_late`, a task lost with its worker and run again, the sweep) sends at most once per due
attempt."""

from celery import shared_task

from accounts.webhooks import services

_SAFE_TO_REPEAT = {"acks_late": True, "reject_on_worker_lost": True, "ignore_result": True}


@shared_task(name="accounts.webhook_message_deliver", **_SAFE_TO_REPEAT)
def webhook_message_deliver(*, message_id: int) -> bool:
    return services.webhook_message_deliver(message_id=message_id)


@shared_task(name="accounts.webhooks_sweep", **_SAFE_TO_REPEAT)
def webhooks_sweep() -> int:
    return services.webhooks_sweep()
