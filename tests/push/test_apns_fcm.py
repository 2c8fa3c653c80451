"""Issue 39 items 5 and 6 for APNs and FCM: what reaches an iPhone and an Android phone, sent by the
worker through the client libraries to their services on loopback (tests/push/apns_service.py,
tests/push/fcm_service.py), which check the credentials as Apple and Google do."""

import pytest
from django.db import transaction

from accounts.feed import feed_append
from accounts.push.models import PushDelivery, PushDevice
from tests.push.helpers import run_queued_tasks

pytestmark = pytest.mark.django_db


def _device(make_client, token, platform, device_token, locale="en") -> int:
    response = make_client(token).post(
        "/api/v1/me/devices", {"platform": platform, "token": device_token, "locale": locale}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()["id"]


def _append(django_capture_on_commit_callbacks, **entry) -> int:
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        return feed_append(**entry)


YOUR_TURN = {"game": 41, "table": 6, "seat": 2, "version": 9, "legal_actions": [{"cards": ["S3", "BJ"]}]}


# --- APNs ------------------------------------------------------------------------------------------


def test_apns_receives_the_alert_in_the_devices_language_with_its_collapse_id_and_priority(
    apns_service, make_user, make_client, django_capture_on_commit_callbacks
):
    user, token = make_user()
    phone = apns_service.device()
    _device(make_client, token, "apns", phone, locale="zh-Hans")

    seq = _append(django_capture_on_commit_callbacks, user_id=user.pk, type="your_turn", data=YOUR_TURN)
    assert apns_service.received == []  # the worker sends, not the request
    run_queued_tasks()
    closed = _append(
        django_capture_on_commit_callbacks, user_id=user.pk, type="table_closed", data={"table": 6}
    )
    run_queued_tasks()

    turn, table = apns_service.delivered(phone)
    assert turn.payload == {
        "aps": {"alert": {"title": "轮到你了", "body": "牌桌在等你出牌。"}, "thread-id": "game-41"},
        "type": "your_turn",
        "seq": seq,
        "game": 41,
        "table": 6,
        "seat": 2,
        "version": 9,
    }  # no legal actions: they spell out the hand
    assert turn.headers["apns-priority"] == "10" and turn.headers["apns-collapse-id"] == "game-41"
    assert turn.headers["apns-push-type"] == "alert" and turn.headers["apns-topic"] == "com.example.baohuang"
    assert int(turn.headers["apns-expiration"]) > 0
    assert table.headers["apns-priority"] == "5" and "apns-collapse-id" not in table.headers
    assert table.payload["aps"] == {"alert": {"title": "牌桌已关闭", "body": "你坐过的牌桌已关闭。"}}
    assert table.payload["seq"] == closed
    assert apns_service.tunnels[0] == "api.push.apple.com"  # production, not the sandbox
    assert [d.status for d in PushDelivery.objects.order_by("seq")] == ["sent", "sent"]


@pytest.mark.parametrize(("status", "reason"), [(410, "Unregistered"), (400, "BadDeviceToken")])
def test_apns_saying_the_token_is_gone_removes_the_device(
    apns_service, make_user, make_client, django_capture_on_commit_callbacks, status, reason
):
    user, token = make_user()
    phone = apns_service.device()
    _device(make_client, token, "apns", phone)
    apns_service.answer(phone, (status, reason))
    _append(django_capture_on_commit_callbacks, user_id=user.pk, type="table_closed", data={"table": 3})
    run_queued_tasks()
    assert [(r.status, r.reason) for r in apns_service.received] == [(status, reason)]
    assert not PushDevice.objects.exists()


def test_apns_5xx_is_retried_with_backoff_and_a_refusal_is_given_up(
    apns_service, make_user, make_client, django_capture_on_commit_callbacks, settings
):
    settings.PUSH_RETRY_SCHEDULE = [3.0, 30.0]
    user, token = make_user()
    phone, other = apns_service.device(), apns_service.device()
    _device(make_client, token, "apns", phone)
    _device(make_client, token, "apns", other)
    apns_service.answer(phone, (503, "ServiceUnavailable"), (500, "InternalServerError"))
    apns_service.answer(other, (400, "PayloadTooLarge"))
    _append(django_capture_on_commit_callbacks, user_id=user.pk, type="deal_over", data={"game": 5})
    assert run_queued_tasks() == ["push.entries_push", "push.delivery_retry", "push.delivery_retry"]
    assert [r.status for r in apns_service.received if r.token == phone] == [503, 500, 200]
    assert [r.status for r in apns_service.received if r.token == other] == [400]
    deliveries = {d.device.apns.registration_id: (d.status, d.attempts) for d in PushDelivery.objects.all()}
    assert deliveries == {phone: ("sent", 3), other: ("failed", 1)}
    assert PushDevice.objects.count() == 2  # a refused message is not a gone device


def test_apns_unreachable_is_retried_and_logged_without_the_token(
    apns_service, make_user, make_client, django_capture_on_commit_callbacks, settings, caplog
):
    settings.PUSH_RETRY_SCHEDULE = [1.0]
    user, token = make_user()
    phone = apns_service.device()
    _device(make_client, token, "apns", phone)
    apns_service.__exit__()  # Apple is down: the connection is refused
    with caplog.at_level("DEBUG"):
        _append(django_capture_on_commit_callbacks, user_id=user.pk, type="deal_over", data={"game": 5})
        run_queued_tasks()
    delivery = PushDelivery.objects.get()
    assert (delivery.status, delivery.attempts) == ("failed", 2)
    logged = "\n".join(record.getMessage() + str(record.exc_info) for record in caplog.records)
    assert "given up" in logged and phone not in logged


# --- FCM -------------------------------------------------------------------------------------------


def test_fcm_receives_the_notification_in_the_devices_language_with_its_collapse_key_and_priority(
    fcm_service, make_user, make_client, django_capture_on_commit_callbacks
):
    user, token = make_user()
    phone = fcm_service.device()
    _device(make_client, token, "fcm", phone, locale="en")

    seq = _append(django_capture_on_commit_callbacks, user_id=user.pk, type="your_turn", data=YOUR_TURN)
    assert fcm_service.received == []
    run_queued_tasks()
    invited = {"table": 7, "code": "K3X9", "invitation": 2, "by": "li"}
    second = _append(django_capture_on_commit_callbacks, user_id=user.pk, type="invited", data=invited)
    closed = _append(
        django_capture_on_commit_callbacks, user_id=user.pk, type="table_closed", data={"table": 6}
    )
    run_queued_tasks()

    turn, invitation, table = fcm_service.delivered(phone)
    assert turn.message == {
        "token": phone,
        "notification": {"title": "Your turn", "body": "The table is waiting for you."},
        "data": {
            "type": "your_turn",
            "seq": str(seq),
            "game": "41",
            "table": "6",
            "seat": "2",
            "version": "9",
        },
        "android": {"priority": "high", "collapse_key": "game-41", "ttl": "300s"},
    }
    assert invitation.message["data"] == {
        "type": "invited",
        "seq": str(second),
        "table": "7",
        "invitation": "2",
    }
    assert table.message["android"] == {"priority": "normal", "ttl": "3600s"}
    assert table.message["data"]["seq"] == str(closed)
    # One OAuth token, from the service account's key, serves every send.
    assert fcm_service.token_requests == 1
    assert {r.headers["authorization"] for r in fcm_service.received} == {
        f"Bearer {t}" for t in fcm_service.access_tokens
    }
    assert fcm_service.tunnels[0] == "oauth2.googleapis.com"


def test_fcm_unregistered_removes_the_device(
    fcm_service, make_user, make_client, django_capture_on_commit_callbacks
):
    user, token = make_user()
    phone = fcm_service.device()
    _device(make_client, token, "fcm", phone)
    fcm_service.answer(phone, 404)
    _append(django_capture_on_commit_callbacks, user_id=user.pk, type="table_closed", data={"table": 3})
    run_queued_tasks()
    assert [r.status for r in fcm_service.received] == [404]
    assert not PushDevice.objects.exists()


def test_fcm_5xx_is_retried_with_backoff_and_a_refusal_is_given_up(
    fcm_service, make_user, make_client, django_capture_on_commit_callbacks, settings, caplog
):
    settings.PUSH_RETRY_SCHEDULE = [3.0, 30.0]
    user, token = make_user()
    phone, flaky, refused = fcm_service.device(), fcm_service.device(), fcm_service.device()
    for device_token in (phone, flaky, refused):
        _device(make_client, token, "fcm", device_token)
    fcm_service.answer(phone, 502, 502)  # a front end's error: our schedule retries it
    fcm_service.answer(flaky, 503)  # firebase-admin retries a 503 itself, at once
    fcm_service.answer(refused, 400)
    with caplog.at_level("DEBUG"):
        _append(django_capture_on_commit_callbacks, user_id=user.pk, type="deal_over", data={"game": 5})
        assert run_queued_tasks() == ["push.entries_push", "push.delivery_retry", "push.delivery_retry"]
    assert [r.status for r in fcm_service.received if r.token == phone] == [502, 502, 200]
    assert [r.status for r in fcm_service.received if r.token == flaky] == [503, 200]
    assert [r.status for r in fcm_service.received if r.token == refused] == [400]
    deliveries = {d.device.fcm.registration_id: (d.status, d.attempts) for d in PushDelivery.objects.all()}
    assert deliveries == {phone: ("sent", 3), flaky: ("sent", 1), refused: ("failed", 1)}
    assert PushDevice.objects.count() == 3
    logged = "\n".join(record.getMessage() + str(record.exc_info) for record in caplog.records)
    assert "given up" in logged
    assert not any(device_token in logged for device_token in (phone, flaky, refused))
