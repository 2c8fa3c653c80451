"""A user's devices, notification preferences, inbox and push deliveries (docs/notifications.md).

The device tokens themselves are django-push-notifications' rows (one model per protocol, shown in
its admin); a `PushDevice` is the API's handle on one of them: one id space for `me/devices`, the
language its notifications are written in, and the sign-in that registered it (signing that session
out removes the device).
"""

from django.conf import settings
from django.db import models
from push_notifications.models import APNSDevice, GCMDevice, WebPushDevice

from infra.json_field import OrjsonField


class Platform(models.TextChoices):
    APNS = "apns", "Apple Push Notification service"
    FCM = "fcm", "Firebase Cloud Messaging"
    WEBPUSH = "webpush", "Web Push"


class PushDevice(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_devices")
    platform = models.CharField(max_length=8, choices=Platform.choices)
    # Exactly one of the three, the one of `platform`; deleting it (the admin, the library) deletes this.
    apns = models.OneToOneField(APNSDevice, null=True, blank=True, on_delete=models.CASCADE)
    fcm = models.OneToOneField(GCMDevice, null=True, blank=True, on_delete=models.CASCADE)
    webpush = models.OneToOneField(WebPushDevice, null=True, blank=True, on_delete=models.CASCADE)
    locale = models.CharField(max_length=8, default="en")
    # The session that registered it: signing it out (auth/logout) removes the device.
    auth_token = models.ForeignKey("accounts.AuthToken", null=True, blank=True, on_delete=models.SET_NULL)
    # The user's feed up to here was swept (accounts/push/delivery.py `entries_sweep`): each entry
    # after it whose hand-over was lost is pushed once. A new device starts at the feed's end.
    swept_seq = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.platform} device {self.pk} of {self.user_id}"

    @property
    def library_device(self):
        return getattr(self, self.platform)


class NotificationPreferences(models.Model):
    """Absent: the defaults (accounts/push_kinds.py, docs/notifications.md "Preferences")."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True)
    kinds = OrjsonField(default=dict)  # {kind: bool}: only the kinds the user changed
    quiet_start = models.TimeField(null=True, blank=True)
    quiet_end = models.TimeField(null=True, blank=True)
    time_zone = models.CharField(max_length=64, default="UTC")

    def __str__(self) -> str:
        return f"notification preferences of {self.user_id}"


class InboxItem(models.Model):
    """A feed entry the user should see later (docs/notifications.md "Inbox"), copied from his feed
    by the worker: the feed keeps only its newest entries."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="inbox")
    seq = models.PositiveIntegerField(help_text="The feed entry's seq.")
    type = models.CharField(max_length=32)
    data = OrjsonField()
    created_at = models.DateTimeField()
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "seq"], name="inbox_item_unique_user_seq")]
        ordering = ["-seq"]

    def __str__(self) -> str:
        return f"{self.user_id}#{self.seq} {self.type}"


class DeliveryStatus(models.TextChoices):
    SENT = "sent"
    GONE = "gone"  # the service said the device no longer exists: it was removed
    FAILED = "failed"  # refused, or retries exhausted


class PushDelivery(models.Model):
    """One feed entry pushed to one device: its row makes the push at most once (the unique pair is
    claimed before the send)."""

    device = models.ForeignKey(PushDevice, on_delete=models.CASCADE, related_name="deliveries")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=32)
    status = models.CharField(max_length=8, choices=DeliveryStatus.choices, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["device", "seq"], name="push_delivery_unique_device_seq")
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.seq} to device {self.device_id}: {self.status or 'pending'}"
