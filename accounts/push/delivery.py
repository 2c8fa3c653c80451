"""Pushing feed entries to a user's devices: the worker's side (docs/notifications.md "Delivery").

The feed hands each commit's new entries of the pushable kinds to the worker (accounts/feed.py: a
Redis list drained by `push.entries_drain`, or without Redis the `push.entries_push` task); a
hand-over that was lost is made up by `push.entries_sweep`, which reads the feed itself. For
each entry: a copy goes to the user's inbox if its kind keeps one; then, unless the user turned the
kind off, is in his quiet hours, or (for `your_turn`) is watching the game in the foreground
(infra/presence.py), one push per device.

A push is at most once per entry per device: its `PushDelivery` row (unique per device and seq) is
claimed before the send, so a task run twice sends nothing the second time. A 5xx or a timeout is
tried again after each step of PUSH_RETRY_SCHEDULE (the `push.delivery_retry` task), then given up;
a device the service calls gone (APNs 410, FCM UNREGISTERED, Web Push 404/410) is removed. Nothing
logged names a device token or a subscription: a device is named by its id.

Web Push is sent with pywebpush directly rather than through django-push-notifications'
`WebPushDevice.send_message`, which turns every refusal into one exception without its status (a
5xx to retry and a 400 to give up on look alike) and deactivates a gone subscription instead of
removing it; the subscription and the VAPID key still come from the library's rows and settings.
APNs goes through aioapns directly for the same reason (`_apns`); FCM through the library's send
function (firebase-admin).
"""

import asyncio
import logging
import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta

import orjson
import requests
from celery import current_app
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Min, OuterRef, Subquery
from django.utils import timezone, translation

from accounts.feed import FEED_PAGE, PUSH_QUEUE
from accounts.models import FeedCursor, FeedEvent
from accounts.push import services
from accounts.push.models import DeliveryStatus, InboxItem, Platform, PushDelivery, PushDevice
from accounts.push_kinds import INBOX_KINDS, KINDS, payload_fields
from infra import metrics, presence, wakeups

logger = logging.getLogger(__name__)

# Web Push: how long the service keeps a message for a device that is offline (seconds).
TTL_SECONDS = {True: 300, False: 3600}


@dataclass(frozen=True)
class Message:
    kind: str
    title: str
    body: str
    data: dict  # payload_fields: the kind, the seq, ids
    high: bool
    collapse_key: str | None  # one per game for the kinds that replace each other

    def json(self) -> bytes:
        return orjson.dumps({"title": self.title, "body": self.body, "data": self.data})


def message_for(entry: dict, *, locale: str) -> Message:
    kind = KINDS[entry["type"]]
    data = payload_fields(entry["type"], entry)
    with translation.override(locale):
        title, body = str(kind.title), str(kind.body)
    collapse = f"game-{data['game']}" if kind.collapse_per_game and "game" in data else None
    return Message(entry["type"], title, body, data, kind.high, collapse)


def entries_push(*, entries: list[tuple[int, int]]) -> int:
    """The task's body: `entries` are (user_id, seq) pairs of new feed entries. Returns the pushes
    sent now.

    Read per batch, not per user: most players have no device, and a pair of queries per user and
    entry doubled the worker's CPU per move at 100 tables (docs/scaling.md "Tables played like
    people"). Of a user with no device only the entries kept in the inbox are read."""
    pairs = set(entries)
    if not pairs:
        return 0
    users = {user_id for user_id, _ in pairs}
    with_devices = set(PushDevice.objects.filter(user_id__in=users).values_list("user_id", flat=True))
    rows = []
    for group, kinds in ((with_devices, list(KINDS)), (users - with_devices, list(INBOX_KINDS))):
        if group:
            seqs = {seq for user_id, seq in pairs if user_id in group}
            rows += FeedEvent.objects.filter(user_id__in=group, seq__in=seqs, type__in=kinds)
    by_user: dict[int, list[dict]] = {}
    for row in sorted(rows, key=lambda row: (row.user_id, row.seq)):
        if (row.user_id, row.seq) in pairs:
            by_user.setdefault(row.user_id, []).append({**row.data, "seq": row.seq, "_at": row.created_at})
    sent = 0
    for user_id, feed_entries in by_user.items():
        for entry in feed_entries:
            if entry["type"] in INBOX_KINDS:
                _inbox_keep(user_id, entry)
        if user_id in with_devices:
            sent += _user_push(user_id, [e for e in feed_entries if e["type"] in KINDS])
    return sent


def entries_drain(*, batch: int = 500) -> int:
    """The beat task's body, every PUSH_DRAIN_SECONDS: push what the feed queued in Redis
    (accounts/feed.py), until the queue is empty or half the period has passed; the rest waits for
    the next run. A drain that looped until empty held the worker's processes while moves kept
    feeding it, and the turn timers waited behind it (11–25 s at 200 tables, docs/scaling.md).
    Returns the pushes sent."""
    if not settings.REDIS_URL:
        return 0
    sent = 0
    until = time.monotonic() + settings.PUSH_DRAIN_SECONDS / 2
    while True:
        values = wakeups.dequeue(queue=PUSH_QUEUE, count=batch)
        if not values:
            return sent
        sent += entries_push(entries=[tuple(pair) for value in values for pair in orjson.loads(value)])
        if time.monotonic() >= until:
            return sent


def entries_sweep(*, now: datetime | None = None) -> int:
    """The beat task's body, every PUSH_SWEEP_SECONDS: push the entries whose hand-over was lost (Redis
    down after the commit, a worker that died while draining). Returns the pushes sent.

    Each device's `swept_seq` says how far its user's feed was swept. An entry is swept once it is
    PUSH_SWEEP_GRACE old (its hand-over has had its chance); what no device of the user has a
    delivery for goes through `entries_push`, whose claim keeps it to one push per device even if
    the lost hand-over turns up after all. An entry older than PUSH_SWEEP_MAX_AGE is past pushing
    (an hour-old "your turn" is noise): it is only kept in the inbox if its kind is."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.PUSH_SWEEP_GRACE)
    stale = now - timedelta(seconds=settings.PUSH_SWEEP_MAX_AGE)
    newest = FeedCursor.objects.filter(user_id=OuterRef("user_id")).values("last_seq")
    behind = (
        PushDevice.objects.filter(swept_seq__lt=Subquery(newest))
        .values("user_id")
        .annotate(after=Min("swept_seq"))
        .order_by("user_id")
    )
    return sum(
        _user_sweep(row["user_id"], after=row["after"], cutoff=cutoff, stale=stale)
        for row in behind[: settings.PUSH_SWEEP_USERS]
    )


def _user_sweep(user_id: int, *, after: int, cutoff: datetime, stale: datetime) -> int:
    rows = FeedEvent.objects.filter(user_id=user_id, seq__gt=after).order_by("seq")
    settled = []
    # Seqs are numbered in commit order and only a committed prefix is visible, so the entries old
    # enough to sweep are a prefix too: stop at the first young one (swept next time).
    for seq, kind, created_at in rows.values_list("seq", "type", "created_at")[:FEED_PAGE]:
        if created_at > cutoff:
            break
        settled.append((seq, kind, created_at))
    if not settled:
        return 0
    devices = list(PushDevice.objects.filter(user_id=user_id).values_list("pk", flat=True))
    fresh = [seq for seq, kind, created_at in settled if kind in KINDS and created_at > stale]
    handled = Counter(
        PushDelivery.objects.filter(device_id__in=devices, seq__in=fresh).values_list("seq", flat=True)
    )
    lost = [(user_id, seq) for seq in fresh if handled[seq] < len(devices)]
    sent = entries_push(entries=lost) if lost else 0
    for row in FeedEvent.objects.filter(
        user_id=user_id, seq__in=[seq for seq, kind, at in settled if kind in INBOX_KINDS and at <= stale]
    ):
        _inbox_keep(user_id, {**row.data, "seq": row.seq, "_at": row.created_at})
    last = settled[-1][0]
    PushDevice.objects.filter(user_id=user_id, swept_seq__lt=last).update(swept_seq=last)
    if lost:
        logger.info("push sweep: %s entries of user %s had no delivery", len(lost), user_id)
    return sent


def _inbox_keep(user_id: int, entry: dict) -> None:
    data = {k: v for k, v in entry.items() if k not in ("seq", "_at")}
    try:
        with transaction.atomic():
            InboxItem.objects.create(
                user_id=user_id, seq=entry["seq"], type=entry["type"], data=data, created_at=entry["_at"]
            )
    except IntegrityError:
        pass  # kept by an earlier run of this task


def _user_push(user_id: int, entries: list[dict]) -> int:
    if not entries:
        return 0
    devices = list(PushDevice.objects.filter(user_id=user_id).select_related("apns", "fcm", "webpush"))
    if not devices:
        return 0
    preferences = services.preferences_of(user_id=user_id)
    enabled = services.kinds_enabled(preferences)
    if services.quiet_now(preferences):
        return 0
    sent = 0
    for entry in entries:
        if not enabled[entry["type"]]:
            continue
        if entry["type"] == "your_turn" and presence.watching(user_id=user_id):
            continue  # his app is open on the game: it shows the turn itself
        for device in devices:
            delivery = _claim(device, entry)
            if delivery is not None:
                sent += _attempt(delivery, device, entry) == DeliveryStatus.SENT
    return sent


def _claim(device: PushDevice, entry: dict) -> PushDelivery | None:
    """This entry's push to this device, or None if another run has it already."""
    try:
        with transaction.atomic():
            return PushDelivery.objects.create(device=device, seq=entry["seq"], kind=entry["type"])
    except IntegrityError:
        return None


def _attempt(delivery: PushDelivery, device: PushDevice, entry: dict) -> str:
    message = message_for(entry, locale=device.locale)
    try:
        outcome = SENDERS[device.platform](device, message)
    except Exception as exc:  # noqa: BLE001 - a bug or a library's surprise: counted, logged, not retried
        # The exception's class only: a client library's message may quote the endpoint or the token.
        name = type(exc).__name__
        logger.error("push of %s #%s to device %s failed: %s", delivery.kind, delivery.seq, device.pk, name)
        outcome = "failed"
    delivery.attempts += 1
    metrics.record_push(platform=device.platform, kind=delivery.kind, outcome=outcome)
    schedule = settings.PUSH_RETRY_SCHEDULE
    if outcome == "retry" and delivery.attempts <= len(schedule):
        delivery.save(update_fields=["attempts"])
        _retry_schedule(delivery.pk, countdown=schedule[delivery.attempts - 1])
        return "retry"
    if outcome == "retry":
        outcome = DeliveryStatus.FAILED
    delivery.status = outcome
    delivery.save(update_fields=["attempts", "status"])
    if outcome == DeliveryStatus.GONE:
        logger.info("push service says device %s of user %s is gone: removed", device.pk, device.user_id)
        device.library_device.delete()
    elif outcome == DeliveryStatus.FAILED:
        logger.warning("push of %s #%s to device %s given up", delivery.kind, delivery.seq, device.pk)
    return outcome


def _retry_schedule(delivery_id: int, *, countdown: float) -> None:
    try:
        current_app.send_task("push.delivery_retry", kwargs={"delivery_id": delivery_id}, countdown=countdown)
    except Exception:  # noqa: BLE001
        logger.warning("push retry of delivery %s not scheduled", delivery_id, exc_info=True)


def delivery_retry(*, delivery_id: int) -> str | None:
    """The retry task's body: the next attempt of a pending delivery (nothing if it is settled, its
    device removed, or its entry pruned from the feed)."""
    delivery = PushDelivery.objects.select_related("device").filter(pk=delivery_id, status="").first()
    if delivery is None:
        return None
    device = PushDevice.objects.select_related("apns", "fcm", "webpush").get(pk=delivery.device_id)
    row = FeedEvent.objects.filter(user_id=device.user_id, seq=delivery.seq).first()
    if row is None:
        PushDelivery.objects.filter(pk=delivery_id).update(status=DeliveryStatus.FAILED)
        return DeliveryStatus.FAILED
    return _attempt(delivery, device, {**row.data, "seq": row.seq})


# --- One send per platform: returns sent, gone, retry or failed. ---------------------------------


def _webpush(device: PushDevice, message: Message) -> str:
    from push_notifications.conf import get_manager
    from push_notifications.webpush import get_subscription_info
    from pywebpush import WebPushException, webpush

    library = device.webpush
    manager = get_manager()
    private_key = manager.get_wp_private_key(library.application_id)
    if not private_key:
        return "failed"  # no VAPID key configured (docs/deploy.md)
    headers = {"Urgency": "high" if message.high else "normal"}
    if message.collapse_key:
        headers["Topic"] = message.collapse_key  # RFC 8030 §5.4: replaces an undelivered one
    try:
        webpush(
            subscription_info=get_subscription_info(
                library.application_id, library.registration_id, library.browser, library.auth, library.p256dh
            ),
            data=message.json(),
            vapid_private_key=private_key,
            vapid_claims=dict(manager.get_wp_claims(library.application_id)),
            ttl=TTL_SECONDS[message.high],
            headers=headers,
            timeout=manager.get_wp_error_timeout(library.application_id),
        )
    except WebPushException as exc:
        status = exc.response.status_code if exc.response is not None else None
        return _by_status(status)
    except requests.RequestException:
        return "retry"
    return "sent"


def _by_status(status: int | None) -> str:
    """Web Push: RFC 8030 §6.2 and §7.3 (404/410: the subscription is gone)."""
    if status in (404, 410):
        return "gone"
    return _retry_or_fail(status)


def _retry_or_fail(status: int | None) -> str:
    """A refusal that is not the device's: the service's trouble (5xx, 429, no answer) is retried."""
    return "retry" if status is None or status >= 500 or status == 429 else "failed"


APNS_GONE = {"Unregistered", "BadDeviceToken", "DeviceTokenNotForTopic"}


def _apns(device: PushDevice, message: Message) -> str:
    """Through aioapns itself, the library django-push-notifications wraps: its wrapper raises one
    exception for every refusal (a 503 to retry and a 400 to give up on look alike) and gives a send
    one second. The key, team, topic and sandbox still come from the library's settings."""
    from aioapns import PRIORITY_HIGH, PRIORITY_NORMAL, NotificationRequest, PushType
    from aioapns.exceptions import ConnectionClosed, MaxAttemptsExceeded
    from aioapns.exceptions import ConnectionError as APNsConnectionError
    from push_notifications.conf import get_manager

    library = device.apns
    manager = get_manager()
    if not manager.has_auth_token_creds(library.application_id):
        return "failed"  # no APNs key configured (docs/deploy.md)
    key_path, key_id, team_id = manager.get_apns_auth_creds(library.application_id)
    aps: dict = {"alert": {"title": message.title, "body": message.body}}
    if message.collapse_key:
        aps["thread-id"] = message.collapse_key  # the notifications of one game group together
    request = NotificationRequest(
        device_token=library.registration_id,
        message={"aps": aps, **message.data},
        time_to_live=TTL_SECONDS[message.high],
        priority=PRIORITY_HIGH if message.high else PRIORITY_NORMAL,
        collapse_key=message.collapse_key,
        push_type=PushType.ALERT,
    )
    client_options = {
        "key": key_path,
        "key_id": key_id,
        "team_id": team_id,
        "topic": manager.get_apns_topic(library.application_id),
        "use_sandbox": manager.get_apns_use_sandbox(library.application_id),
    }
    try:
        result = asyncio.run(_apns_send(request, client_options))
    except (TimeoutError, OSError, APNsConnectionError, ConnectionClosed, MaxAttemptsExceeded):
        return "retry"  # unreachable, refused, slow: the service's trouble, not the device's
    if result.is_successful:
        return "sent"
    status = int(result.status) if str(result.status).isdigit() else None
    if status == 410 or result.description in APNS_GONE:
        return "gone"
    return _retry_or_fail(status)


async def _apns_send(request, client_options: dict):
    from aioapns import APNs

    # One connection per send, as django-push-notifications' own send makes: a worker process runs
    # one event loop per call, and a connection does not outlive its loop.
    client = APNs(
        **client_options,
        max_connection_attempts=1,  # a refused connection is retried by PUSH_RETRY_SCHEDULE, not here
    )
    try:
        return await asyncio.wait_for(
            client.send_notification(request), timeout=settings.PUSH_TIMEOUT_SECONDS
        )
    finally:
        client.pool.close()


def _fcm(device: PushDevice, message: Message) -> str:
    from firebase_admin import exceptions as firebase_exceptions
    from firebase_admin import messaging
    from push_notifications.gcm import send_message

    library = device.fcm
    if not _firebase_ready():
        return "failed"  # no service account configured (docs/deploy.md)
    fcm_message = messaging.Message(
        data={key: str(value) for key, value in message.data.items()},
        notification=messaging.Notification(title=message.title, body=message.body),
        android=messaging.AndroidConfig(
            priority="high" if message.high else "normal",
            collapse_key=message.collapse_key,
            ttl=TTL_SECONDS[message.high],
        ),
    )
    response = send_message(library.registration_id, fcm_message, application_id=library.application_id)
    result = response.responses[0]
    if result.success:
        return "sent"
    exc = result.exception
    if isinstance(exc, messaging.UnregisteredError):
        return "gone"
    if isinstance(
        exc,
        firebase_exceptions.UnavailableError  # also a refused connection
        | firebase_exceptions.InternalError
        | firebase_exceptions.DeadlineExceededError  # a timeout
        | messaging.QuotaExceededError,
    ):
        return "retry"
    # firebase-admin's own retries (urllib3: 500 and 503, four times) are behind it; any other 5xx
    # (a front end's 502) is retried here too.
    response = getattr(exc, "http_response", None)
    return _retry_or_fail(response.status_code) if response is not None else "failed"


def _firebase_ready() -> bool:
    import firebase_admin

    try:
        firebase_admin.get_app()
        return True
    except ValueError:
        pass
    if not settings.FCM_CREDENTIALS_PATH:
        return False
    firebase_admin.initialize_app(
        firebase_admin.credentials.Certificate(settings.FCM_CREDENTIALS_PATH),
        options={"httpTimeout": settings.PUSH_TIMEOUT_SECONDS},  # its default is 120 s
    )
    return True


SENDERS = {Platform.WEBPUSH: _webpush, Platform.APNS: _apns, Platform.FCM: _fcm}
