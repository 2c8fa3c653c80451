"""Issue 39 item 5, lost hand-overs: an entry committed to the feed whose hand-over to the worker was
lost (Redis flushed or down between the commit and the drain, a worker dying mid-drain) is pushed by
beat's sweep, which reads the feed from each device's swept cursor (accounts/push/delivery.py
`entries_sweep`), still at most once per entry per device."""

from datetime import timedelta

import orjson
import pytest
from django.db import transaction
from django.utils import timezone

from accounts.feed import PUSH_QUEUE, feed_append
from accounts.push import delivery
from accounts.push.models import InboxItem, PushDelivery, PushDevice
from infra import wakeups
from tests.conftest import require_local_redis
from tests.push.helpers import run_queued_tasks

pytestmark = pytest.mark.django_db

REDIS_URL = "redis://127.0.0.1:6379/14"


@pytest.fixture
def redis_on(settings):
    require_local_redis(REDIS_URL)
    settings.REDIS_URL = REDIS_URL
    wakeups.client_reset()
    wakeups.redis_client().flushdb()
    yield wakeups.redis_client()
    wakeups.client_reset()


def _device(make_client, token, browser) -> None:
    body = {"platform": "webpush", "subscription": browser.subscription()}
    assert make_client(token).post("/api/v1/me/devices", body, format="json").status_code == 201


def _append(django_capture_on_commit_callbacks, **entry) -> int:
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        return feed_append(**entry)


def _later(seconds: float):
    return timezone.now() + timedelta(seconds=seconds)


def test_an_entry_lost_with_redis_between_commit_and_drain_is_pushed_by_the_sweep_exactly_once(
    redis_on, webpush_service, make_user, make_client, django_capture_on_commit_callbacks, settings
):
    user, token = make_user()
    browser = webpush_service.browser()
    _device(make_client, token, browser)
    seq = _append(django_capture_on_commit_callbacks, user_id=user.pk, type="table_closed", data={"table": 4})
    assert redis_on.llen(wakeups.queue_name(PUSH_QUEUE)) == 1  # handed over…
    redis_on.flushdb()  # …and lost
    run_queued_tasks()
    assert webpush_service.received == []

    assert delivery.entries_sweep() == 0  # within the grace: its hand-over may still come
    assert delivery.entries_sweep(now=_later(settings.PUSH_SWEEP_GRACE + 1)) == 1
    assert [m["data"] for m in webpush_service.delivered(browser)] == [
        {"type": "table_closed", "seq": seq, "table": 4}
    ]

    # Swept once: the next sweep finds nothing, and the hand-over turning up after all sends nothing.
    assert delivery.entries_sweep(now=_later(settings.PUSH_SWEEP_GRACE + 60)) == 0
    assert delivery.entries_push(entries=[(user.pk, seq)]) == 0
    assert len(webpush_service.received) == 1
    assert PushDevice.objects.get().swept_seq == seq


def test_the_sweep_sends_nothing_again_for_entries_the_drain_pushed(
    redis_on, webpush_service, make_user, make_client, django_capture_on_commit_callbacks, settings
):
    user, token = make_user()
    browser = webpush_service.browser()
    _device(make_client, token, browser)
    _append(django_capture_on_commit_callbacks, user_id=user.pk, type="table_closed", data={"table": 4})
    _append(django_capture_on_commit_callbacks, user_id=user.pk, type="deal_started", data={"table": 4})
    run_queued_tasks()
    assert len(webpush_service.received) == 1
    assert delivery.entries_sweep(now=_later(settings.PUSH_SWEEP_GRACE + 1)) == 0
    assert len(webpush_service.received) == 1 and PushDelivery.objects.count() == 1
    assert PushDevice.objects.get().swept_seq == 2  # past the entry no push is for, too


def test_a_new_device_is_not_swept_what_came_before_it(
    redis_on, webpush_service, make_user, make_client, django_capture_on_commit_callbacks, settings
):
    user, token = make_user()
    _append(django_capture_on_commit_callbacks, user_id=user.pk, type="table_closed", data={"table": 4})
    redis_on.flushdb()
    _device(make_client, token, webpush_service.browser())
    assert delivery.entries_sweep(now=_later(settings.PUSH_SWEEP_GRACE + 1)) == 0
    assert webpush_service.received == []


def test_an_entry_lost_too_long_ago_is_kept_in_the_inbox_and_not_pushed(
    redis_on, webpush_service, make_user, make_client, django_capture_on_commit_callbacks, settings
):
    user, token = make_user()
    _device(make_client, token, webpush_service.browser())
    invited = {"table": 7, "code": "K3X9", "invitation": 2, "by": "li"}
    seq = _append(django_capture_on_commit_callbacks, user_id=user.pk, type="invited", data=invited)
    queued = redis_on.lrange(wakeups.queue_name(PUSH_QUEUE), 0, -1)
    assert [orjson.loads(value) for value in queued] == [[[user.pk, seq]]]
    redis_on.flushdb()  # lost while the worker was down for an hour

    assert delivery.entries_sweep(now=_later(settings.PUSH_SWEEP_MAX_AGE + 1)) == 0
    assert webpush_service.received == []
    inbox = make_client(token).get("/api/v1/me/inbox").json()
    assert [(item["seq"], item["data"]["code"]) for item in inbox["items"]] == [(seq, "K3X9")]


def test_the_drain_reads_a_batch_of_players_without_devices_in_a_few_queries(
    redis_on, make_user, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    """Most players have no device: their entries cost the worker one read per batch, not a pair of
    queries per user (docs/scaling.md); the entries kept in the inbox are still kept."""
    users = [make_user()[0] for _ in range(12)]
    for user in users:
        _append(django_capture_on_commit_callbacks, user_id=user.pk, type="your_turn", data={"game": 1})
    _append(django_capture_on_commit_callbacks, user_id=users[0].pk, type="invited", data={"table": 7})
    # The devices, the inbox kinds' entries, and the one inbox row (its insert in a savepoint).
    with django_assert_max_num_queries(5):
        assert delivery.entries_drain() == 0
    assert InboxItem.objects.filter(user=users[0], type="invited").count() == 1
    assert not InboxItem.objects.exclude(user=users[0]).exists()


def test_a_drain_stops_after_half_its_period_and_leaves_the_rest_to_the_next(
    redis_on, make_user, django_capture_on_commit_callbacks, settings
):
    """A drain that loops until its queue is empty holds a worker process while moves feed it, and the
    turn timers wait behind it: it stops after half of PUSH_DRAIN_SECONDS (here none: one batch)."""
    user, _ = make_user()
    for _ in range(3):
        _append(django_capture_on_commit_callbacks, user_id=user.pk, type="your_turn", data={"game": 1})
    settings.PUSH_DRAIN_SECONDS = 0
    delivery.entries_drain(batch=1)
    assert redis_on.llen(wakeups.queue_name(PUSH_QUEUE)) == 2
    delivery.entries_drain(batch=1)
    assert redis_on.llen(wakeups.queue_name(PUSH_QUEUE)) == 1
