"""Webhooks (docs/integrations.md): a user's endpoint, the messages owed to it (the outbox) and every attempt.

A message is written in the transaction of the change it reports, so it exists exactly when the change
committed; Celery delivers it afterwards, at least once. Its `msg_id` is the `webhook-id` header of
every attempt, retries and redeliveries included, so a receiver de-duplicates on it.
"""

from django.conf import settings
from django.db import models


class WebhookEvent(models.TextChoices):
    GAME_OVER = "game.over"
    TABLE_CLOSED = "table.closed"
    RATING_CHANGED = "rating.changed"
    TOURNAMENT_FINISHED = "tournament.finished"


class Webhook(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhooks")
    url = models.CharField(max_length=2000)
    events = models.JSONField(help_text="Event types sent to this URL.")
    # Standard Webhooks' `whsec_<base64 key>`. Kept in clear: the server signs with it.
    secret = models.CharField(max_length=100)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    failures_in_row = models.PositiveIntegerField(
        default=0, help_text="Failed attempts since the last success; WEBHOOK_DISABLE_AFTER disables it."
    )
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"webhook {self.pk} of {self.owner_id} -> {self.url}"


class MessageStatus(models.TextChoices):
    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed", "failed (retries exhausted or webhook disabled)"


class WebhookMessage(models.Model):
    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="messages")
    msg_id = models.CharField(max_length=40, unique=True)
    event = models.CharField(max_length=32, choices=WebhookEvent.choices)
    # The exact body every attempt sends (its signature covers these bytes).
    body = models.TextField()
    table_id = models.BigIntegerField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=MessageStatus.choices, default=MessageStatus.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    # When the next attempt is due. While an attempt is under way it is pushed WEBHOOK_LEASE_SECONDS
    # ahead, so that the sweep resends a message whose worker died mid-attempt, and only then.
    next_attempt_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    failure_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="webhook_message_due")]

    def __str__(self) -> str:
        return f"{self.event} {self.msg_id} ({self.status})"


class WebhookDelivery(models.Model):
    """One attempt to send a message: what the receiver answered, or why nothing came back."""

    message = models.ForeignKey(WebhookMessage, on_delete=models.CASCADE, related_name="deliveries")
    attempt = models.PositiveIntegerField()
    status_code = models.PositiveIntegerField(null=True, blank=True)
    success = models.BooleanField()
    duration_ms = models.PositiveIntegerField()
    response_excerpt = models.TextField(blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "webhook deliveries"

    def __str__(self) -> str:
        return f"attempt {self.attempt} of {self.message_id}: {self.status_code or self.error}"
