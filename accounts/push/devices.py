"""Registering and removing a user's devices (`me/devices`, docs/notifications.md "Devices").

A device token belongs to one user: registering a token another account holds moves it (the phone
changed hands, or its app signed in as someone else), so a push never reaches the wrong player.
Signing out the session that registered a device, signing out everywhere and deleting the account
remove devices; so does a push service saying the device is gone (accounts/push/delivery.py).
"""

import hashlib

from django.conf import settings
from django.db import connection, transaction
from push_notifications.models import APNSDevice, GCMDevice, WebPushDevice

from accounts.feed import feed_last_seq
from accounts.push.models import Platform, PushDevice
from accounts.webhooks import sender
from infra.api.errors import ApiError, ErrorCode

LIBRARY_MODELS = {Platform.APNS: APNSDevice, Platform.FCM: GCMDevice, Platform.WEBPUSH: WebPushDevice}
LOCALES = ("en", "zh-hans")


def locale_of(value: str | None) -> str:
    """The catalogue a device's notifications are written in: zh-Hans (any zh-CN, zh-SG, zh-Hans-*)
    or English."""
    value = (value or "").lower().replace("_", "-")
    if value.startswith("zh") and not any(tag in value for tag in ("hant", "-tw", "-hk", "-mo")):
        return "zh-hans"
    return "en"


def _token_lock(platform: str, token: str) -> None:
    """Two registrations of one token (two accounts on one phone, a retried request) take turns, so
    the token ends with exactly one device row. A transaction-level advisory lock: no row to lock
    before the first registration exists."""
    if connection.vendor != "postgresql":
        return
    key = int.from_bytes(hashlib.sha256(f"push:{platform}:{token}".encode()).digest()[:8], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])


def endpoint_check(endpoint: str) -> None:
    """A Web Push endpoint is a URL the worker will post to: it must be https and public, by the
    webhooks' rule (accounts/webhooks/sender.py), or the server would post wherever a client says."""
    try:
        target = sender.target_check(endpoint)
    except sender.UrlRefused as exc:
        raise ApiError(
            ErrorCode.INVALID_REQUEST,
            f"subscription.endpoint: {exc}",
            extra={"fields": {"subscription": [str(exc)]}},
        ) from exc
    if target.scheme != "https":
        raise ApiError(
            ErrorCode.INVALID_REQUEST,
            "subscription.endpoint must use https.",
            extra={"fields": {"subscription": ["https only"]}},
        )


def device_register(
    *,
    user,
    auth_token_id: int | None,
    platform: str,
    token: str,
    keys: dict | None = None,
    app_id: str | None = None,
    locale: str | None = None,
    name: str | None = None,
) -> tuple[PushDevice, bool]:
    """Register `token` (a Web Push subscription's endpoint, with its `keys`) for `user`; returns the
    device and whether it is new. The same token registered again by its owner updates it."""
    if platform == Platform.WEBPUSH:
        endpoint_check(token)
    model = LIBRARY_MODELS[Platform(platform)]
    with transaction.atomic():
        _token_lock(platform, token)
        existing = list(
            PushDevice.objects.select_related(platform).filter(
                platform=platform, **{f"{platform}__registration_id": token}
            )
        )
        mine = next((device for device in existing if device.user_id == user.pk), None)
        for device in existing:
            if device is not mine:  # held by another account (or a stale copy): moved to this one
                device.library_device.delete()
        if mine is None and PushDevice.objects.filter(user=user).count() >= settings.PUSH_DEVICES_PER_USER:
            raise ApiError(
                ErrorCode.INVALID_REQUEST,
                f"At most {settings.PUSH_DEVICES_PER_USER} devices per user: remove one first.",
            )
        fields = {"user": user, "application_id": app_id or None, "name": name or None, "active": True}
        if platform == Platform.WEBPUSH:
            fields |= {"p256dh": keys["p256dh"], "auth": keys["auth"]}
        if platform == Platform.FCM:
            fields["cloud_message_type"] = "FCM"
        if mine is None:
            library = model.objects.create(registration_id=token, **fields)
            device = PushDevice.objects.create(
                user=user,
                platform=platform,
                locale=locale_of(locale),
                auth_token_id=auth_token_id,
                swept_seq=feed_last_seq(user_id=user.pk),  # what came before it is not its to push
                **{platform: library},
            )
            return device, True
        library = mine.library_device
        for field, value in fields.items():
            setattr(library, field, value)
        library.save()
        mine.locale = locale_of(locale) if locale else mine.locale
        mine.auth_token_id = auth_token_id
        mine.save(update_fields=["locale", "auth_token"])
        return mine, False


def _remove(devices) -> int:
    """Delete devices with their library rows (which cascade to them)."""
    removed = 0
    for device in devices.select_related("apns", "fcm", "webpush"):
        device.library_device.delete()
        removed += 1
    return removed


def device_remove(*, user, device_id: int) -> None:
    if not _remove(PushDevice.objects.filter(user=user, pk=device_id)):
        raise ApiError(ErrorCode.NOT_FOUND, "No such device.")


def devices_remove_for_tokens(*, token_ids) -> int:
    """The sessions `token_ids` signed out: their devices stop receiving the user's pushes."""
    return _remove(PushDevice.objects.filter(auth_token_id__in=list(token_ids)))


def devices_remove_for_user(*, user_id: int) -> int:
    return _remove(PushDevice.objects.filter(user_id=user_id))
