"""Issue 39 item 5 through a real Celery worker with beat, on real Redis and the PostgreSQL test
database: a committed feed entry is queued with its wake-ups, beat's drain takes it, and the worker
pushes it to the Web Push service on loopback, retrying a 503 on the schedule."""

import os
import time

import pytest
from django.db import connection, transaction

from accounts.feed import feed_append
from accounts.push import devices
from accounts.push.models import PushDelivery
from infra import wakeups
from tests.games.worker import worker_running
from tests.push.webpush_service import vapid_keys

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]

BROKER = os.environ.get("CELERY_WORKER_TEST_BROKER", "redis://127.0.0.1:6379/13")


@pytest.fixture
def worker(tmp_path, settings, webpush_service, monkeypatch):
    if connection.vendor != "postgresql":
        reason = "real-worker tests need PostgreSQL (set DATABASE_URL)"
        (pytest.fail if os.environ.get("CI") else pytest.skip)(reason)
    settings.REDIS_URL = BROKER  # the feed queues there; the worker's drain reads it
    wakeups.client_reset()
    private, public = vapid_keys()
    webpush_service.vapid_public_key = public
    env = {
        "REDIS_URL": BROKER,
        "WEBHOOK_ALLOW_PRIVATE": "1",
        "WEBPUSH_VAPID_PRIVATE_KEY": private,
        "REQUESTS_CA_BUNDLE": webpush_service.ca_file,
        "PUSH_DRAIN_SECONDS": "0.3",
        "PUSH_RETRY_SCHEDULE": "0.5,0.5",
    }
    try:
        with worker_running(broker=BROKER, workdir=tmp_path, env=env) as process:
            yield process
    finally:
        wakeups.client_reset()


def _wait(predicate, worker, timeout: float = 60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out:\n{worker.log_tail()}")


def test_the_worker_pushes_a_committed_entry_and_retries_a_503(worker, webpush_service, make_user, settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True
    user, _ = make_user()
    browser = webpush_service.browser()
    keys = browser.subscription()["keys"]
    devices.device_register(
        user=user, auth_token_id=None, platform="webpush", token=browser.endpoint, keys=keys, locale="en"
    )
    webpush_service.answer(browser, 503)
    with wakeups.batched(), transaction.atomic():
        seq = feed_append(user_id=user.pk, type="table_closed", data={"table": 4})

    _wait(lambda: webpush_service.delivered(browser), worker)
    assert [r.status for r in webpush_service.received] == [503, 201]
    assert webpush_service.delivered(browser) == [
        {
            "title": "Table closed",
            "body": "A table you sat at has closed.",
            "data": {"type": "table_closed", "seq": seq, "table": 4},
        }
    ]
    _wait(lambda: PushDelivery.objects.filter(status="sent").exists(), worker)
    time.sleep(1.0)  # a second drain or a repeated task would have sent again by now
    assert len(webpush_service.received) == 2
