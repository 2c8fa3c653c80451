"""/metrics: refused to strangers; request and domain figures move when things happen; the database
gauges equal what the database holds; several processes add up in multi-process mode."""

import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from celery import shared_task

from games.models import Game, GameStatus
from infra import metrics
from matchmaking.models import Table, TableStatus
from tests.api.playing import play_deal
from tests.conftest import assert_error
from tests.ops.scrape import METRICS_TOKEN, family_names, samples, scrape, value

pytestmark = pytest.mark.django_db

BASE_DIR = Path(__file__).resolve().parent.parent.parent


@pytest.fixture
def metrics_token(settings):
    settings.METRICS_TOKEN = METRICS_TOKEN
    settings.METRICS_ALLOWED_IPS = []


def test_metrics_are_refused_to_everyone_when_nothing_is_configured(client, settings):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_IPS = []
    body = assert_error(client.get("/metrics"), 403, "permission_denied")
    assert "baohuang" not in str(body)


def test_metrics_need_the_token_when_one_is_configured(client, metrics_token):
    missing = client.get("/metrics")
    assert_error(missing, 401, "not_authenticated")
    assert missing["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert_error(client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong"), 401, "not_authenticated")
    assert_error(client.get("/metrics", HTTP_AUTHORIZATION=METRICS_TOKEN), 401, "not_authenticated")
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {METRICS_TOKEN}").status_code == 200


def test_metrics_are_served_to_an_allowed_network(client, settings):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_IPS = ["10.0.0.0/8", "not-an-address"]
    assert client.get("/metrics", REMOTE_ADDR="10.20.30.40").status_code == 200
    assert_error(client.get("/metrics", REMOTE_ADDR="192.168.1.1"), 403, "permission_denied")
    # A forwarded-for header is the caller's to invent: it does not count.
    assert_error(
        client.get("/metrics", REMOTE_ADDR="192.168.1.1", HTTP_X_FORWARDED_FOR="10.0.0.1"),
        403,
        "permission_denied",
    )


def test_a_played_deal_moves_the_request_metrics_and_the_gauges_match_the_database(
    client, make_table, metrics_token
):
    setup = make_table(deals=1)
    before = samples(scrape(client))
    posted = []
    play_deal(
        setup["clients"],
        setup["game"],
        random.Random(7),
        observe=lambda seat, kind, body: posted.append(1) if kind == "action" else None,
    )
    after_text = scrape(client)
    after = samples(after_text)

    route = "api/v1/games/<id:game_id>/actions"
    labels = {"route": route, "method": "POST", "status": 200}
    moved = value(after, "baohuang_http_requests_total", **labels) - value(
        before, "baohuang_http_requests_total", **labels
    )
    assert posted and moved == len(posted)
    timed = value(after, "baohuang_http_request_duration_seconds_count", **labels) - value(
        before, "baohuang_http_request_duration_seconds_count", **labels
    )
    assert timed == len(posted)
    views = {"route": "api/v1/games/<id:game_id>", "method": "GET", "status": 200}
    assert value(after, "baohuang_http_requests_total", **views) > value(
        before, "baohuang_http_requests_total", **views
    )
    # The scrape before this one was counted under its own route (the request ends after the body).
    assert value(after, "baohuang_http_requests_total", route="metrics", method="GET", status=200) >= 1

    for status in TableStatus.values:
        expected = Table.objects.filter(status=status).count()
        assert value(after, "baohuang_tables", status=status) == expected, status
    assert Table.objects.get(pk=setup["table"]).status != TableStatus.WAITING
    running = Game.objects.filter(status=GameStatus.RUNNING, preset="weihai").count()
    assert value(after, "baohuang_deals_running", preset="weihai") == running


def test_the_record_functions_move_their_series(client, metrics_token):
    before = samples(scrape(client))
    metrics.record_action(preset="weihai", type="play", seconds=0.02)
    metrics.record_action(preset="weihai", type="play", seconds=0.03)
    metrics.record_deal_end(preset="weihai", outcome="void")
    metrics.record_deal_end(preset="weihai", outcome="something else")
    metrics.record_timeout(preset="weihai", seats=2)
    metrics.record_trustee_action(preset="weihai")
    metrics.record_timer_lateness(-0.5)
    metrics.record_timer_lateness(3)
    metrics.record_bot_action(preset="weihai", type="pass")
    metrics.record_webhook_delivery("delivered")
    metrics.record_webhook_delivery("HTTP 500: <html>...</html>")
    metrics.record_ticket_matched(preset="weihai", seconds=12)
    after = samples(scrape(client))

    def moved(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("baohuang_game_actions_total", preset="weihai", type="play") == 2
    assert moved("baohuang_game_action_duration_seconds_count", preset="weihai", type="play") == 2
    assert moved("baohuang_game_action_duration_seconds_sum", preset="weihai", type="play") == pytest.approx(
        0.05
    )
    assert moved("baohuang_deals_ended_total", preset="weihai", outcome="void") == 1
    assert moved("baohuang_deals_ended_total", preset="weihai", outcome="other") == 1
    assert moved("baohuang_timeouts_total", preset="weihai") == 2
    assert moved("baohuang_trustee_actions_total", preset="weihai") == 1
    assert moved("baohuang_timer_lateness_seconds_count") == 2
    # The negative lateness (a clock ahead) is clamped to 0, inside the smallest bucket.
    assert moved("baohuang_timer_lateness_seconds_bucket", le="0.01") == 1
    assert moved("baohuang_timer_lateness_seconds_bucket", le="5.0") == 2
    assert moved("baohuang_bot_actions_total", preset="weihai", type="pass") == 1
    assert moved("baohuang_webhook_deliveries_total", outcome="delivered") == 1
    assert moved("baohuang_webhook_deliveries_total", outcome="other") == 1
    assert moved("baohuang_ticket_wait_seconds_bucket", preset="weihai", le="10.0") == 0
    assert moved("baohuang_ticket_wait_seconds_bucket", preset="weihai", le="20.0") == 1


def test_a_metric_that_cannot_be_recorded_does_not_raise(caplog):
    metrics.record_action(preset="weihai", type="play", seconds="not a number")
    assert any("record_action" in record.getMessage() for record in caplog.records)


@shared_task(name="tests.ops.always_fails")
def always_fails(*, game_id: int) -> None:
    raise RuntimeError("boom")


def test_a_failing_celery_task_is_counted(client, metrics_token):
    before = samples(scrape(client))
    result = always_fails.apply(kwargs={"game_id": 1})
    assert result.failed()
    after = samples(scrape(client))
    name, task = "baohuang_celery_task_failures_total", "tests.ops.always_fails"
    assert value(after, name, task=task) - value(before, name, task=task) == 1


def test_ticket_gauges_exist_exactly_when_the_ticket_model_does(client, metrics_token):
    from django.apps import apps

    try:
        apps.get_model("matchmaking", "Ticket")
        has_tickets = True
    except LookupError:
        has_tickets = False
    names = family_names(scrape(client))
    assert ("baohuang_tickets_waiting" in names) == has_tickets
    assert ("baohuang_ticket_oldest_wait_seconds" in names) == has_tickets
    assert "baohuang_tables" in names


def test_processes_sharing_a_multiprocess_dir_add_up(tmp_path):
    """gunicorn's workers (or a prefork worker's children) each count; one scrape sums them."""
    record = textwrap.dedent(
        """
        from infra import metrics
        metrics.record_action(preset="weihai", type="play", seconds=0.1)
        metrics.record_webhook_delivery("delivered")
        """
    )
    read = textwrap.dedent(
        """
        from prometheus_client import generate_latest
        from infra import metrics
        print(generate_latest(metrics.process_registry()).decode())
        """
    )
    env = {
        **os.environ,
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
    }
    for _ in range(3):
        subprocess.run([sys.executable, "-c", record], cwd=BASE_DIR, env=env, check=True, timeout=60)
    out = subprocess.run(
        [sys.executable, "-c", read],
        cwd=BASE_DIR,
        env=env,
        check=True,
        timeout=60,
        capture_output=True,
        text=True,
    ).stdout
    found = samples(out)
    assert value(found, "baohuang_game_actions_total", preset="weihai", type="play") == 3
    assert value(found, "baohuang_game_action_duration_seconds_count", preset="weihai", type="play") == 3
    assert value(found, "baohuang_webhook_deliveries_total", outcome="delivered") == 3
