"""Webhook writes: registering, deleting, redelivering, and delivering one message (the task's body).

One attempt is: claim the message (a short transaction pushes `next_attempt_at` a lease ahead), send
it outside any transaction, then record the attempt and decide what follows (delivered, a retry at
the next step of WEBHOOK_RETRY_SCHEDULE, or given up). A worker that dies mid-attempt leaves a claimed
message whose lease runs out; the sweep then resends it with the same `webhook-id`.
"""

import base64
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from standardwebhooks.webhooks import Webhook as Signer

from accounts.webhooks import outbox, sender
from accounts.webhooks.models import MessageStatus, Webhook, WebhookDelivery, WebhookEvent, WebhookMessage
from infra import commit, metrics
from infra.api.errors import ApiError, ErrorCode


def retry_schedule() -> list[float]:
    return list(settings.WEBHOOK_RETRY_SCHEDULE)


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def webhook_create(*, owner, url: str, events: list[str]) -> Webhook:
    if not events or any(event not in WebhookEvent.values for event in events):
        raise ApiError(
            ErrorCode.INVALID_REQUEST,
            f"events must be a non-empty list of {', '.join(WebhookEvent.values)}.",
            extra={"events": ["invalid"]},
        )
    try:
        sender.target_check(url)
    except sender.UrlRefused as exc:
        raise ApiError(ErrorCode.INVALID_REQUEST, str(exc), extra={"url": [str(exc)]}) from exc
    if Webhook.objects.filter(owner=owner).count() >= settings.WEBHOOKS_PER_USER:
        raise ApiError(ErrorCode.INVALID_REQUEST, f"At most {settings.WEBHOOKS_PER_USER} webhooks per user.")
    return Webhook.objects.create(owner=owner, url=url, events=sorted(set(events)), secret=new_secret())


def webhook_delete(*, webhook: Webhook) -> None:
    webhook.delete()


def message_redeliver(*, message: WebhookMessage) -> WebhookMessage:
    """Send a message again now, with its `webhook-id`; the retry schedule starts over. A disabled
    webhook gets this one attempt (its owner testing a fix); a success enables it again."""
    with transaction.atomic():
        message = WebhookMessage.objects.select_for_update().get(pk=message.pk)
        message.status = MessageStatus.PENDING
        message.attempts = 0
        message.next_attempt_at = timezone.now()
        message.failure_reason = ""
        message.save(update_fields=["status", "attempts", "next_attempt_at", "failure_reason"])
        commit.on_commit(lambda: outbox.deliveries_schedule(message_ids=[message.pk]))
    return message


def signed_headers(*, secret: str, msg_id: str, body: str) -> dict[str, str]:
    """Standard Webhooks headers, signed by the `standardwebhooks` package itself."""
    now = timezone.now()
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Signer(secret).sign(msg_id=msg_id, timestamp=now, data=body),
    }


def _claim(*, message_id: int) -> WebhookMessage | None:
    now = timezone.now()
    # A task may fire a moment before the stored time (two clocks); a second's slack avoids a sweep.
    due = now + timedelta(seconds=1)
    with transaction.atomic():
        message = (
            WebhookMessage.objects.select_for_update(skip_locked=True)
            .select_related("webhook")
            .filter(pk=message_id, status=MessageStatus.PENDING, next_attempt_at__lte=due)
            .first()
        )
        if message is None:
            return None
        # Only a redelivery (attempts reset to 0) may go to a disabled webhook.
        if not message.webhook.active and message.attempts > 0:
            message.status = MessageStatus.FAILED
            message.failure_reason = f"webhook disabled: {message.webhook.disabled_reason}"
            message.save(update_fields=["status", "failure_reason"])
            return None
        message.attempts += 1
        message.next_attempt_at = now + timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS)
        message.save(update_fields=["attempts", "next_attempt_at"])
    return message


def webhook_message_deliver(*, message_id: int) -> bool:
    """One attempt at `message_id` if it is due; False when there was nothing to do."""
    message = _claim(message_id=message_id)
    if message is None:
        return False
    webhook = message.webhook
    result = sender.post(
        url=webhook.url,
        body=message.body,
        headers=signed_headers(secret=webhook.secret, msg_id=message.msg_id, body=message.body),
    )
    retry_in = None
    with transaction.atomic():
        # Lock order: webhook, then message (as _disable's update of the webhook's messages).
        webhook = Webhook.objects.select_for_update().filter(pk=webhook.pk).first()
        message = WebhookMessage.objects.select_for_update().filter(pk=message.pk).first()
        if webhook is None or message is None:
            return True  # deleted by its owner while the attempt was under way
        WebhookDelivery.objects.create(
            message=message,
            attempt=message.attempts,
            status_code=result.status_code,
            success=result.success,
            duration_ms=result.duration_ms,
            response_excerpt=result.response_excerpt,
            error=result.error,
        )
        now = timezone.now()
        if result.success:
            message.status, message.delivered_at, message.failure_reason = MessageStatus.DELIVERED, now, ""
            webhook.failures_in_row = 0
            if not webhook.active:
                webhook.active, webhook.disabled_at, webhook.disabled_reason = True, None, ""
        else:
            webhook.failures_in_row += 1
            schedule = retry_schedule()
            if message.attempts <= len(schedule):
                retry_in = schedule[message.attempts - 1]
                message.next_attempt_at = now + timedelta(seconds=retry_in)
            else:
                message.status = MessageStatus.FAILED
                message.failure_reason = f"gave up after {message.attempts} attempts: {result.error}"
            if webhook.active and webhook.failures_in_row >= settings.WEBHOOK_DISABLE_AFTER:
                _disable(webhook=webhook, now=now, last_error=result.error)
                if message.status == MessageStatus.PENDING:
                    message.status = MessageStatus.FAILED
                    message.failure_reason = f"webhook disabled: {webhook.disabled_reason}"
                    retry_in = None
        message.save(update_fields=["status", "delivered_at", "failure_reason", "next_attempt_at"])
        webhook.save(update_fields=["failures_in_row", "active", "disabled_at", "disabled_reason"])
        outcome = "delivered" if result.success else "failed" if retry_in is not None else "gave_up"
        metrics.record_webhook_delivery(outcome)
        if retry_in is not None:
            commit.on_commit(
                lambda: outbox.deliveries_schedule(message_ids=[message.pk], countdown=retry_in)
            )
    return True


def _disable(*, webhook: Webhook, now, last_error: str) -> None:
    webhook.active = False
    webhook.disabled_at = now
    webhook.disabled_reason = (
        f"Disabled after {webhook.failures_in_row} failed attempts in a row; the last: {last_error}."
    )
    WebhookMessage.objects.filter(webhook=webhook, status=MessageStatus.PENDING).update(
        status=MessageStatus.FAILED, failure_reason=f"webhook disabled: {webhook.disabled_reason}"
    )


def webhooks_sweep(*, limit: int = 200) -> int:
    """Schedule pending messages that are overdue by WEBHOOK_SWEEP_GRACE seconds: their task was lost
    (a publish that failed, a worker killed mid-attempt once its lease ran out). Returns how many."""
    overdue = timezone.now() - timedelta(seconds=settings.WEBHOOK_SWEEP_GRACE)
    message_ids = list(
        WebhookMessage.objects.filter(status=MessageStatus.PENDING, next_attempt_at__lt=overdue)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
    outbox.deliveries_schedule(message_ids=message_ids)
    return len(message_ids)
