"""Issue 39 items 2 and 5: what reaches a phone, through the worker, to a Web Push service on loopback
that decrypts each message with the subscription's keys and checks VAPID (tests/push/webpush_service.py)."""

import pytest
from django.db import transaction

from accounts.feed import feed_append
from accounts.push.models import PushDelivery, PushDevice
from tests.push.helpers import run_queued_tasks

pytestmark = pytest.mark.django_db


def _device(make_client, token, browser, locale="en") -> int:
    response = make_client(token).post(
        "/api/v1/me/devices",
        {"platform": "webpush", "subscription": browser.subscription(), "locale": locale},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()["id"]


def _append(django_capture_on_commit_callbacks, **entry) -> int:
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        return feed_append(**entry)


def test_an_invitation_reaches_the_phone_decrypted_in_its_language_and_lands_in_the_inbox(
    webpush_service, make_user, make_client, django_capture_on_commit_callbacks
):
    user, token = make_user()
    browser = webpush_service.browser()
    _device(make_client, token, browser, locale="zh-Hans")

    seq = _append(
        django_capture_on_commit_callbacks,
        user_id=user.pk,
        type="invited",
        data={"table": 7, "code": "K3X9", "invitation": 2, "by": "li"},
    )
    assert webpush_service.received == []  # nothing in the request: the worker sends
    assert run_queued_tasks() == ["push.entries_push"]

    [message] = webpush_service.delivered(browser)
    assert message == {
        "title": "你被邀请了",
        "body": "一位玩家邀请你加入私人牌桌。",
        "data": {"type": "invited", "seq": seq, "table": 7, "invitation": 2},  # not the code: a secret
    }
    [received] = webpush_service.received
    assert received.headers["urgency"] == "high" and "topic" not in received.headers
    inbox = make_client(token).get("/api/v1/me/inbox").json()
    assert inbox["unread"] == 1
    assert [(item["seq"], item["type"], item["data"]["code"]) for item in inbox["items"]] == [
        (seq, "invited", "K3X9")
    ]
    marked = make_client(token).post("/api/v1/me/inbox/read", {}, format="json").json()
    assert marked == {"marked": 1}
    assert make_client(token).get("/api/v1/me/inbox", {"unread": "true"}).json()["items"] == []


def test_your_turn_carries_ids_only_and_collapses_per_game(
    webpush_service, make_user, make_client, django_capture_on_commit_callbacks
):
    user, token = make_user()
    browser = webpush_service.browser()
    _device(make_client, token, browser)
    hand = [{"type": "play", "cards": ["S3", "S3", "BJ"]}]
    _append(
        django_capture_on_commit_callbacks,
        user_id=user.pk,
        type="your_turn",
        data={"game": 41, "version": 9, "deadline": "2026-12-06T10:00:00Z", "legal_actions": hand},
    )
    run_queued_tasks()
    [message] = webpush_service.delivered(browser)
    assert message["data"] == {"type": "your_turn", "seq": 1, "game": 41, "version": 9}
    assert message["title"] == "Your turn"
    [received] = webpush_service.received
    assert received.headers["topic"] == "game-41" and received.headers["urgency"] == "high"


def test_a_tournament_round_and_its_end_reach_the_phone_and_the_end_lands_in_the_inbox(
    webpush_service, make_user, make_client, django_capture_on_commit_callbacks
):
    user, token = make_user()
    browser = webpush_service.browser()
    _device(make_client, token, browser, locale="zh-Hans")
    seated = {"tournament": 3, "round": 2, "table": 8, "seat": 4, "game": 90}
    capture = django_capture_on_commit_callbacks
    first = _append(capture, user_id=user.pk, type="tournament_round", data=seated)
    result = {"tournament": 3, "rank": 1, "matchpoints": 12, "score": 40}
    last = _append(capture, user_id=user.pk, type="tournament_finished", data=result)
    run_queued_tasks()
    assert [(m["title"], m["data"]) for m in webpush_service.delivered(browser)] == [
        ("比赛新一轮", {"type": "tournament_round", "seq": first, **seated}),
        ("比赛结束", {"type": "tournament_finished", "seq": last, "tournament": 3}),  # the rank: in the app
    ]
    inbox = make_client(token).get("/api/v1/me/inbox").json()
    assert [item["type"] for item in inbox["items"]] == ["tournament_finished"]


def test_a_kind_not_pushed_and_a_kind_turned_off_send_nothing(
    webpush_service, make_user, make_client, django_capture_on_commit_callbacks
):
    user, token = make_user()
    _device(make_client, token, webpush_service.browser())
    make_client(token).patch("/api/v1/me/notifications", {"kinds": {"your_turn": False}}, format="json")
    _append(
        django_capture_on_commit_callbacks,
        user_id=user.pk,
        type="deal_started",
        data={"table": 1, "game": 2, "seat": 0},
    )
    assert run_queued_tasks() == []  # not a pushable kind: no task at all
    _append(
        django_capture_on_commit_callbacks, user_id=user.pk, type="your_turn", data={"game": 2, "version": 1}
    )
    assert run_queued_tasks() == ["push.entries_push"]
    assert webpush_service.received == []


def test_a_gone_subscription_is_removed(
    webpush_service, make_user, make_client, django_capture_on_commit_callbacks
):
    user, token = make_user()
    browser = webpush_service.browser()
    _device(make_client, token, browser)
    webpush_service.answer(browser, 410)
    _append(django_capture_on_commit_callbacks, user_id=user.pk, type="table_closed", data={"table": 3})
    run_queued_tasks()
    assert [r.status for r in webpush_service.received] == [410]
    assert not PushDevice.objects.exists()


def test_a_5xx_is_retried_with_backoff_and_a_push_is_sent_once_per_entry_per_device(
    webpush_service, make_user, make_client, django_capture_on_commit_callbacks, settings
):
    settings.PUSH_RETRY_SCHEDULE = [3.0, 30.0]
    user, token = make_user()
    browser = webpush_service.browser()
    _device(make_client, token, browser)
    webpush_service.answer(browser, 503, 500)
    seq = _append(django_capture_on_commit_callbacks, user_id=user.pk, type="deal_over", data={"game": 5})
    assert run_queued_tasks() == ["push.entries_push", "push.delivery_retry", "push.delivery_retry"]
    assert [r.status for r in webpush_service.received] == [503, 500, 201]
    assert PushDelivery.objects.get().status == "sent" and PushDelivery.objects.get().attempts == 3

    # The same task again (a redelivered message, acks_late): nothing more is sent.
    from accounts.tasks import entries_push

    entries_push(entries=[[user.pk, seq]])
    assert len(webpush_service.received) == 3


def test_retries_end_and_the_delivery_is_given_up(
    webpush_service, make_user, make_client, django_capture_on_commit_callbacks, settings
):
    settings.PUSH_RETRY_SCHEDULE = [1.0]
    user, token = make_user()
    browser = webpush_service.browser()
    _device(make_client, token, browser)
    webpush_service.answer(browser, 502, 502, 502)
    _append(django_capture_on_commit_callbacks, user_id=user.pk, type="deal_over", data={"game": 5})
    run_queued_tasks()
    assert [r.status for r in webpush_service.received] == [502, 502]
    assert PushDelivery.objects.get().status == "failed"
    assert PushDevice.objects.exists()  # a service's trouble is not the device's


def test_quiet_hours_hold_pushes_back(
    webpush_service, make_user, make_client, django_capture_on_commit_callbacks
):
    user, token = make_user()
    _device(make_client, token, webpush_service.browser())
    make_client(token).patch(
        "/api/v1/me/notifications", {"quiet_hours": {"start": "00:00", "end": "23:59"}}, format="json"
    )
    _append(
        django_capture_on_commit_callbacks, user_id=user.pk, type="invited", data={"table": 1, "code": "A"}
    )
    run_queued_tasks()
    assert webpush_service.received == []
    assert make_client(token).get("/api/v1/me/inbox").json()["unread"] == 1  # kept for later


def test_failures_are_logged_and_counted_without_the_token(
    webpush_service, make_user, make_client, django_capture_on_commit_callbacks, caplog
):
    from prometheus_client import REGISTRY

    def count(outcome):
        labels = {"platform": "webpush", "kind": "table_closed", "outcome": outcome}
        return REGISTRY.get_sample_value("baohuang_push_sent_total", labels) or 0

    before = {outcome: count(outcome) for outcome in ("failed", "gone")}
    user, token = make_user()
    refused, gone, broken = webpush_service.browser(), webpush_service.browser(), webpush_service.browser()
    webpush_service.answer(refused, 400)
    webpush_service.answer(gone, 410)
    _device(make_client, token, refused)
    _device(make_client, token, gone)
    subscription = broken.subscription()
    subscription["keys"]["p256dh"] = "not-a-key"  # the encryption fails in the client library
    body = {"platform": "webpush", "subscription": subscription}
    assert make_client(token).post("/api/v1/me/devices", body, format="json").status_code == 201

    with caplog.at_level("INFO"):
        _append(django_capture_on_commit_callbacks, user_id=user.pk, type="table_closed", data={"table": 3})
        run_queued_tasks()

    assert count("failed") == before["failed"] + 2 and count("gone") == before["gone"] + 1
    logged = "\n".join(record.getMessage() + str(record.exc_info) for record in caplog.records)
    assert "given up" in logged and "failed: Error" in logged and "gone: removed" in logged  # binascii.Error
    for browser in (refused, gone, broken):
        secrets = [browser.endpoint.rsplit("/", 1)[1], browser.subscription()["keys"]["auth"]]
        assert not any(secret in logged for secret in secrets)


def test_a_reports_outcome_reaches_the_reporters_phone_and_lands_in_his_inbox(
    webpush_service, make_user, make_client, django_capture_on_commit_callbacks
):
    from tests.moderation.helpers import make_moderator

    _, moderator = make_moderator(make_user, make_client)
    reported, _ = make_user()
    _, token = make_user()
    browser = webpush_service.browser()
    _device(make_client, token, browser, locale="zh-Hans")
    body = {"user": reported.pk, "reason": "stalling"}
    report_id = make_client(token).post("/api/v1/reports", body, format="json").json()["id"]

    with django_capture_on_commit_callbacks(execute=True):
        dismissed = moderator.post(
            f"/api/v1/moderation/reports/{report_id}/dismiss", {"note": "ok"}, format="json"
        )
    assert dismissed.status_code == 200
    run_queued_tasks()

    [message] = webpush_service.delivered(browser)
    assert message == {
        "title": "你的举报",
        "body": "管理员已处理你的举报。",
        "data": {"type": "report_outcome", "seq": 1, "report": report_id},  # the outcome: in the app
    }
    [item] = make_client(token).get("/api/v1/me/inbox").json()["items"]
    assert item["data"] == {"type": "report_outcome", "report": report_id, "outcome": "no_action"}
