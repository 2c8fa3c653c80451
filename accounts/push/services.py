"""Preferences (`me/notifications`) and the inbox (`me/inbox`): docs/notifications.md."""

import zoneinfo
from datetime import datetime, time

from django.db import transaction
from django.utils import timezone

from accounts.push import devices
from accounts.push.models import InboxItem, NotificationPreferences, PushDevice
from accounts.push_kinds import KINDS
from infra.api.errors import ApiError, ErrorCode

INBOX_PAGE = 50


def preferences_of(*, user_id: int) -> NotificationPreferences:
    """The user's preferences; the defaults (unsaved) when he never changed them."""
    return NotificationPreferences.objects.filter(user_id=user_id).first() or NotificationPreferences(
        user_id=user_id
    )


def kinds_enabled(preferences: NotificationPreferences) -> dict[str, bool]:
    return {kind: bool(preferences.kinds.get(kind, row.default)) for kind, row in KINDS.items()}


def _invalid(field: str, message: str) -> ApiError:
    return ApiError(ErrorCode.INVALID_REQUEST, message, extra={"fields": {field: [message]}})


def preferences_update(*, user_id: int, changes: dict) -> NotificationPreferences:
    """PATCH me/notifications: `kinds` (some kinds on or off), `quiet_hours` ({start, end} or null),
    `time_zone` (an IANA name)."""
    with transaction.atomic():
        preferences, _ = NotificationPreferences.objects.select_for_update().get_or_create(user_id=user_id)
        if "kinds" in changes:
            unknown = sorted(set(changes["kinds"]) - set(KINDS))
            if unknown:
                raise _invalid("kinds", f"No such kind: {', '.join(unknown)}.")
            preferences.kinds = {**preferences.kinds, **changes["kinds"]}
        if "time_zone" in changes:
            try:
                zoneinfo.ZoneInfo(changes["time_zone"])
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                raise _invalid("time_zone", "Not an IANA time zone name.") from None
            preferences.time_zone = changes["time_zone"]
        if "quiet_hours" in changes:
            quiet = changes["quiet_hours"]
            preferences.quiet_start = quiet["start"] if quiet else None
            preferences.quiet_end = quiet["end"] if quiet else None
        preferences.save()
    return preferences


def quiet_now(preferences: NotificationPreferences, *, now: datetime | None = None) -> bool:
    """Inside the user's quiet hours, in his time zone; a span may cross midnight (22:00–07:00)."""
    start, end = preferences.quiet_start, preferences.quiet_end
    if start is None or end is None or start == end:
        return False
    local: time = (now or timezone.now()).astimezone(zoneinfo.ZoneInfo(preferences.time_zone)).time()
    return start <= local < end if start < end else (local >= start or local < end)


def inbox_page(*, user_id: int, before: int | None, unread_only: bool) -> dict:
    items = InboxItem.objects.filter(user_id=user_id)
    if unread_only:
        items = items.filter(read_at__isnull=True)
    if before is not None:
        items = items.filter(seq__lt=before)
    page = list(items.order_by("-seq")[: INBOX_PAGE + 1])
    unread = InboxItem.objects.filter(user_id=user_id, read_at__isnull=True).count()
    return {"items": page[:INBOX_PAGE], "unread": unread, "more": len(page) > INBOX_PAGE}


def inbox_mark_read(*, user_id: int, seqs: list[int] | None) -> int:
    """Mark these items (all, when `seqs` is None) read; items read already stay as they were."""
    items = InboxItem.objects.filter(user_id=user_id, read_at__isnull=True)
    if seqs is not None:
        items = items.filter(seq__in=seqs)
    return items.update(read_at=timezone.now())


def account_push_export(*, user_id: int) -> dict:
    """The sections of `GET me/export` this app keeps (their shape: accounts/account_apis.py): the
    devices without their tokens, the preferences and the inbox."""
    return {
        "devices": list(
            PushDevice.objects.filter(user_id=user_id).select_related("apns", "fcm", "webpush").order_by("id")
        ),
        "notifications": preferences_of(user_id=user_id),
        "inbox": list(InboxItem.objects.filter(user_id=user_id).order_by("seq")),
    }


def account_push_erase(*, user_id: int) -> None:
    """Account deletion (accounts/account_services.py): devices, inbox and preferences go."""
    devices.devices_remove_for_user(user_id=user_id)
    InboxItem.objects.filter(user_id=user_id).delete()
    NotificationPreferences.objects.filter(user_id=user_id).delete()
