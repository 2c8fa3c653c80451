"""The outbox: games, tables and ratings report their changes here, inside their own transaction.

`webhook_enqueue` writes one message per webhook that should hear of the change (its owner created
the table or sits at it, or is staff) and schedules its delivery for after the commit. A rolled-back
change leaves no message; a committed one always has its message, even if the task is lost (the
sweep, accounts.webhooks.services.webhooks_sweep, sends it).
"""

import json
import logging
import secrets

from celery import current_app
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Q
from django.utils import timezone

from accounts.webhooks.models import Webhook, WebhookEvent, WebhookMessage
from infra import commit
from infra.timestamps import utc_iso

logger = logging.getLogger(__name__)


def message_body(*, event: str, data: dict) -> str:
    """The Standard Webhooks payload `{"type", "timestamp", "data"}`, fixed once for every attempt."""
    payload = {"type": event, "timestamp": utc_iso(timezone.now()), "data": data}
    return json.dumps(payload, cls=DjangoJSONEncoder, separators=(",", ":"), ensure_ascii=False)


def new_msg_id() -> str:
    return f"msg_{secrets.token_hex(16)}"


def webhook_enqueue(
    *, event: str, data: dict, user_ids: list[int | None], table_id: int | None = None
) -> int:
    """Queue `event` for the active webhooks of `user_ids` (the table's creator and players) and of
    staff users, and send their delivery after the commit. Call it inside the transaction of the
    change. Returns how many messages it wrote."""
    message_ids = webhook_messages_write(event=event, data=data, user_ids=user_ids, table_id=table_id)
    if message_ids:
        commit.on_commit(lambda: deliveries_schedule(message_ids=message_ids))
    return len(message_ids)


def webhook_messages_write(
    *, event: str, data: dict, user_ids: list[int | None], table_id: int | None = None
) -> list[int]:
    """`webhook_enqueue` without the after-commit send, which the caller owes
    (`deliveries_schedule` of the ids returned): a deal's unit of work sends it with its own
    (games/work.py)."""
    if event not in WebhookEvent.values:
        raise ValueError(f"unknown webhook event {event!r}")
    owners = {user_id for user_id in user_ids if user_id is not None}
    candidates = Webhook.objects.filter(active=True).filter(Q(owner_id__in=owners) | Q(owner__is_staff=True))
    # `events` is filtered here, not in SQL: JSON containment is not portable to SQLite.
    webhooks = [webhook for webhook in candidates.only("pk", "events") if event in webhook.events]
    if not webhooks:
        return []
    body = message_body(event=event, data=data)
    now = timezone.now()
    messages = WebhookMessage.objects.bulk_create(
        [
            WebhookMessage(
                webhook_id=webhook.pk,
                msg_id=new_msg_id(),
                event=event,
                body=body,
                table_id=table_id,
                next_attempt_at=now,
            )
            for webhook in webhooks
        ]
    )
    return [message.pk for message in messages]


def deliveries_schedule(*, message_ids: list[int], countdown: float = 0) -> None:
    """Hand messages to the worker. A failed publish only delays them until the sweep. The task
    (accounts/tasks.py) is sent by name: it wraps the services that build on this module."""
    for message_id in message_ids:
        try:
            current_app.send_task(
                "accounts.webhook_message_deliver", kwargs={"message_id": message_id}, countdown=countdown
            )
        except Exception:  # noqa: BLE001
            logger.warning("webhook delivery task for message %s not scheduled", message_id, exc_info=True)
