"""Issue 39 items 1, 3, 4: `me/devices`, `me/notifications`, `me/inbox` (docs/notifications.md)."""

import pytest
from push_notifications.models import APNSDevice, WebPushDevice

from accounts.push.models import PushDevice
from tests.conftest import assert_error
from tests.push.webpush_service import Browser

pytestmark = pytest.mark.django_db

APNS_TOKEN = "a1" * 32


def _subscription(endpoint: str = "https://127.0.0.1:9/send/abc") -> dict:
    return Browser(endpoint=endpoint).subscription()


def _register(client, **body):
    return client.post("/api/v1/me/devices", body, format="json")


def test_a_device_is_registered_listed_and_removed(make_user, make_client, settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True  # a loopback endpoint: the resolver is not the point here
    user, token = make_user()
    client = make_client(token)

    created = _register(
        client, platform="webpush", subscription=_subscription(), locale="zh-CN", name="Chrome"
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert set(body) == {"id", "platform", "locale", "name", "created_at"}  # never the token
    assert (body["platform"], body["locale"], body["name"]) == ("webpush", "zh-hans", "Chrome")
    again = _register(client, platform="webpush", subscription=_subscription(), locale="en")
    assert again.status_code == 200 and again.json()["id"] == body["id"] and again.json()["locale"] == "en"
    assert _register(client, platform="apns", token=APNS_TOKEN).status_code == 201

    listed = client.get("/api/v1/me/devices").json()["devices"]
    assert [d["platform"] for d in listed] == ["webpush", "apns"]
    assert client.delete(f"/api/v1/me/devices/{body['id']}").status_code == 204
    assert [d["platform"] for d in client.get("/api/v1/me/devices").json()["devices"]] == ["apns"]
    assert not WebPushDevice.objects.exists()  # the library's row goes with it
    assert_error(client.delete(f"/api/v1/me/devices/{body['id']}"), 404, "not_found")


def test_a_token_belongs_to_one_user_a_second_registration_moves_it(make_user, make_client):
    first, first_token = make_user()
    second, second_token = make_user()
    assert _register(make_client(first_token), platform="apns", token=APNS_TOKEN).status_code == 201
    assert _register(make_client(second_token), platform="apns", token=APNS_TOKEN).status_code == 201
    assert list(APNSDevice.objects.values_list("user_id", flat=True)) == [second.pk]
    assert make_client(first_token).get("/api/v1/me/devices").json() == {"devices": []}


def test_another_users_device_is_not_found(make_user, make_client):
    _, mine = make_user()
    _, theirs = make_user()
    device = _register(make_client(theirs), platform="fcm", token="fcm-token-1").json()
    assert_error(make_client(mine).delete(f"/api/v1/me/devices/{device['id']}"), 404, "not_found")
    assert PushDevice.objects.count() == 1


@pytest.mark.parametrize(
    "body",
    [
        {"platform": "webpush", "token": "x"},
        {"platform": "apns"},
        {"platform": "apns", "token": APNS_TOKEN, "subscription": _subscription()},
        {"platform": "sms", "token": "x"},
        {"platform": "webpush", "subscription": {"endpoint": "https://push.example.com/x"}},
        {"platform": "webpush", "subscription": _subscription("http://push.example.com/x")},
        {"platform": "webpush", "subscription": _subscription("https://127.0.0.1/x")},
        {"platform": "webpush", "subscription": _subscription("not a url")},
    ],
)
def test_bad_registrations_are_refused_in_the_error_shape(make_user, make_client, body):
    _, token = make_user()
    assert_error(_register(make_client(token), **body), 400, "invalid_request")
    assert not PushDevice.objects.exists()


def test_signing_out_removes_that_sessions_devices_and_deletion_all(make_user, make_client):
    user, token = make_user()
    phone = (
        make_client()
        .post("/api/v1/auth/token", {"username": user.username, "password": "correct-horse-9"}, format="json")
        .json()["token"]
    )
    assert _register(make_client(phone), platform="apns", token=APNS_TOKEN).status_code == 201
    assert _register(make_client(token), platform="fcm", token="fcm-token-2").status_code == 201

    assert make_client(phone).post("/api/v1/auth/logout").status_code == 204
    assert list(PushDevice.objects.values_list("platform", flat=True)) == ["fcm"]
    assert not APNSDevice.objects.exists()

    deleted = make_client(token).delete("/api/v1/me", {"password": "correct-horse-9"}, format="json")
    assert deleted.status_code == 204, deleted.content
    assert not PushDevice.objects.exists()


def test_sign_out_everywhere_removes_every_device(make_user, make_client):
    _, token = make_user()
    _register(make_client(token), platform="apns", token=APNS_TOKEN)
    assert make_client(token).post("/api/v1/auth/logout-all").status_code == 204
    assert not PushDevice.objects.exists()


def test_preferences_default_on_and_change_per_kind_with_quiet_hours(make_user, make_client):
    _, token = make_user()
    client = make_client(token)
    body = client.get("/api/v1/me/notifications").json()
    assert body["quiet_hours"] is None and body["time_zone"] == "UTC"
    assert body["kinds"]["your_turn"] is True and body["kinds"]["invited"] is True

    changed = client.patch(
        "/api/v1/me/notifications",
        {
            "kinds": {"your_turn": False},
            "quiet_hours": {"start": "22:30", "end": "07:00"},
            "time_zone": "Asia/Shanghai",
        },
        format="json",
    )
    assert changed.status_code == 200, changed.content
    assert changed.json()["kinds"]["your_turn"] is False and changed.json()["kinds"]["deal_over"] is True
    assert changed.json()["quiet_hours"] == {"start": "22:30", "end": "07:00"}
    assert client.get("/api/v1/me/notifications").json() == changed.json()
    assert (
        client.patch("/api/v1/me/notifications", {"quiet_hours": None}, format="json").json()["quiet_hours"]
        is None
    )


@pytest.mark.parametrize(
    "body",
    [
        {"kinds": {"gossip": True}},
        {"time_zone": "Mars/Olympus"},
        {"quiet_hours": {"start": "25:00", "end": "1"}},
        {"kinds": {"your_turn": "sometimes"}},
        {"colour": "red"},
    ],
)
def test_bad_preferences_are_refused(make_user, make_client, body):
    _, token = make_user()
    assert_error(
        make_client(token).patch("/api/v1/me/notifications", body, format="json"), 400, "invalid_request"
    )


def test_quiet_hours_cross_midnight_in_the_users_time_zone():
    from datetime import UTC, datetime, time

    from accounts.push.models import NotificationPreferences
    from accounts.push.services import quiet_now

    preferences = NotificationPreferences(
        quiet_start=time(22, 0), quiet_end=time(7, 0), time_zone="Asia/Shanghai"
    )
    assert quiet_now(preferences, now=datetime(2026, 12, 6, 15, 0, tzinfo=UTC))  # 23:00 in Shanghai
    assert quiet_now(preferences, now=datetime(2026, 12, 6, 22, 59, tzinfo=UTC))  # 06:59
    assert not quiet_now(preferences, now=datetime(2026, 12, 6, 23, 0, tzinfo=UTC))  # 07:00
    assert not quiet_now(preferences, now=datetime(2026, 12, 6, 6, 0, tzinfo=UTC))  # 14:00


def test_the_vapid_key_is_served_when_configured(make_user, make_client, settings):
    _, token = make_user()
    settings.WEBPUSH_VAPID_PUBLIC_KEY = ""
    assert_error(make_client(token).get("/api/v1/push/vapid-key"), 404, "not_found")
    settings.WEBPUSH_VAPID_PUBLIC_KEY = "BPublicKey"
    assert make_client(token).get("/api/v1/push/vapid-key").json() == {"public_key": "BPublicKey"}


def test_the_export_holds_devices_without_tokens_preferences_and_inbox(make_user, make_client):
    _, token = make_user()
    client = make_client(token)
    _register(client, platform="apns", token=APNS_TOKEN, locale="zh-Hans", name="iPhone")
    client.patch("/api/v1/me/notifications", {"kinds": {"deal_over": False}}, format="json")
    export = client.get("/api/v1/me/export")
    assert export.status_code == 200, export.content
    body = export.json()
    assert [(d["platform"], d["locale"], d["name"]) for d in body["devices"]] == [
        ("apns", "zh-hans", "iPhone")
    ]
    assert body["notifications"]["kinds"]["deal_over"] is False and body["inbox"] == []
    assert APNS_TOKEN not in export.content.decode()
