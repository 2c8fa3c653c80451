"""Webhook reads: always the caller's own (another user's webhook is 404, not 403: its id leaks nothing)."""

from accounts.webhooks.models import Webhook, WebhookDelivery
from infra.api.errors import ApiError, ErrorCode


def webhooks_of(*, owner) -> list[Webhook]:
    return list(Webhook.objects.filter(owner=owner))


def webhook_get(*, owner, webhook_id: int) -> Webhook:
    webhook = Webhook.objects.filter(owner=owner, pk=webhook_id).first()
    if webhook is None:
        raise ApiError(ErrorCode.NOT_FOUND, "No such webhook.")
    return webhook


def webhook_deliveries(*, webhook: Webhook, limit: int = 100) -> list[WebhookDelivery]:
    """The latest attempts, newest first."""
    return list(
        WebhookDelivery.objects.filter(message__webhook=webhook)
        .select_related("message")
        .order_by("-created_at", "-id")[:limit]
    )


def webhook_delivery_get(*, webhook: Webhook, delivery_id: int) -> WebhookDelivery:
    delivery = (
        WebhookDelivery.objects.filter(message__webhook=webhook, pk=delivery_id)
        .select_related("message")
        .first()
    )
    if delivery is None:
        raise ApiError(ErrorCode.NOT_FOUND, "No such delivery.")
    return delivery
