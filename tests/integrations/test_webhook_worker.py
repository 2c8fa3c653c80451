"""Webhooks through a real Celery worker (with beat), real Redis and the PostgreSQL test database, to a
real receiver on loopback (tests/games/test_worker.py runs the worker the same way)."""

import json
import os
import random
import time

import pytest
from django.db import connection
from standardwebhooks.webhooks import Webhook as Verifier

from accounts.webhooks import services
from accounts.webhooks.models import MessageStatus, WebhookDelivery, WebhookMessage
from games.models import GameStatus
from tests.api.playing import play_deal
from tests.games.worker import Worker, database_url, flush_redis, use_broker
from tests.integrations.receiver import Receiver

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]

BROKER = os.environ.get("CELERY_WORKER_TEST_BROKER", "redis://127.0.0.1:6379/13")
WORKER_ENV = {
    "WEBHOOK_ALLOW_PRIVATE": "1",
    "WEBHOOK_RETRY_SCHEDULE": "0.5,0.5",
    "WEBHOOK_SWEEP_SECONDS": "0.5",
    "WEBHOOK_SWEEP_GRACE": "0.5",
    "WEBHOOK_LEASE_SECONDS": "2",
    "WEBHOOK_TIMEOUT_SECONDS": "20",
}


@pytest.fixture
def worker(tmp_path, settings):
    if connection.vendor != "postgresql":
        reason = "real-worker tests need PostgreSQL (set DATABASE_URL)"
        (pytest.fail if os.environ.get("CI") else pytest.skip)(reason)
    settings.WEBHOOK_ALLOW_PRIVATE = True
    flush_redis(BROKER)
    previous = use_broker(BROKER)
    process = Worker(
        broker=BROKER, database=database_url(connection.settings_dict), workdir=tmp_path, env=WORKER_ENV
    )
    try:
        process.start()
        yield process
    finally:
        process.kill()
        use_broker(*previous)
        flush_redis(BROKER)


def _wait(predicate, worker: Worker, timeout: float = 60, what: str = ""):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}:\n{worker.log_tail()}")


def test_a_finished_deal_sends_one_signed_game_over_with_the_final_view(worker, make_table):
    setup = make_table()
    player, client = setup["users"][2], setup["clients"][2]
    with Receiver() as receiver:
        webhook = services.webhook_create(owner=player, url=receiver.url, events=["game.over"])
        game = play_deal(setup["clients"], setup["game"], random.Random(12))
        assert game.status in (GameStatus.OVER, GameStatus.VOID)
        [request] = receiver.wait_for(1, timeout=60)
        # One message, recorded as delivered on its first attempt: a second task for it finds it
        # delivered and sends nothing, and no other message exists to be sent.
        message = WebhookMessage.objects.get(webhook=webhook)
        delivered = WebhookMessage.objects.filter(pk=message.pk, status=MessageStatus.DELIVERED)
        assert _wait(delivered.exists, worker)
        assert len(receiver.received) == 1
    payload = Verifier(webhook.secret).verify(request.body, request.headers)
    assert payload["type"] == "game.over"
    assert payload["data"] == client.get(f"/api/v1/games/{game.pk}/final").json()
    assert request.headers["webhook-id"] == message.msg_id
    assert list(WebhookDelivery.objects.values_list("attempt", "status_code", "success")) == [(1, 200, True)]


def test_500_twice_then_200_is_three_attempts_on_the_schedule(worker, make_user):
    from django.db import transaction

    from accounts.webhooks.outbox import webhook_enqueue

    user, _ = make_user()
    with Receiver(statuses=[500, 500]) as receiver:
        webhook = services.webhook_create(owner=user, url=receiver.url, events=["table.closed"])
        with transaction.atomic():
            webhook_enqueue(event="table.closed", data={"table": 1, "reason": "finished"}, user_ids=[user.pk])
        requests = receiver.wait_for(3, timeout=60)
    message = WebhookMessage.objects.get(webhook=webhook)
    assert [r.headers["webhook-id"] for r in requests] == [message.msg_id] * 3
    for request in requests:
        assert Verifier(webhook.secret).verify(request.body, request.headers)["data"]["table"] == 1
    _wait(
        lambda: WebhookDelivery.objects.filter(message=message).count() == 3, worker, what="3 attempts logged"
    )
    attempts = list(WebhookDelivery.objects.filter(message=message).order_by("attempt"))
    assert [(d.attempt, d.status_code, d.success) for d in attempts] == [
        (1, 500, False),
        (2, 500, False),
        (3, 200, True),
    ]
    # The retries waited for the schedule (0.5 s each), no less.
    gaps = [(b.created_at - a.created_at).total_seconds() for a, b in zip(attempts, attempts[1:])]
    assert all(gap >= 0.45 for gap in gaps), gaps
    assert WebhookMessage.objects.get(pk=message.pk).status == MessageStatus.DELIVERED


def test_a_worker_killed_mid_delivery_loses_nothing(worker, make_user):
    """The worker dies after the commit, while its attempt waits for the receiver: nothing is logged
    for it; a new worker's sweep finds the message once its lease runs out and sends it again, with
    the same webhook-id."""
    import threading

    from django.db import transaction

    from accounts.webhooks.outbox import webhook_enqueue

    user, _ = make_user()
    with Receiver() as receiver:
        receiver.hold = threading.Event()
        webhook = services.webhook_create(owner=user, url=receiver.url, events=["table.closed"])
        with transaction.atomic():
            webhook_enqueue(event="table.closed", data={"table": 7}, user_ids=[user.pk])
        [first] = receiver.wait_for(1, timeout=60)
        worker.kill()
        receiver.hold.set()
        message = WebhookMessage.objects.get(webhook=webhook)
        assert message.status == MessageStatus.PENDING and message.attempts == 1
        assert not WebhookDelivery.objects.exists()
        worker.start()
        second = receiver.wait_for(2, timeout=60)[1]
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == message.msg_id
    assert json.loads(second.body) == json.loads(first.body)
    _wait(lambda: WebhookMessage.objects.get(pk=message.pk).status == MessageStatus.DELIVERED, worker)
    assert list(WebhookDelivery.objects.values_list("attempt", "success")) == [(2, True)]
