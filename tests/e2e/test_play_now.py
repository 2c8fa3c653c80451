"""Play now, end to end on real processes (issue 9): a real Celery worker with beat (the matcher,
the bots' moves, the timers) on real Redis and the PostgreSQL test database; the player talks HTTP.

One human takes a ticket, is seated with four bots within MATCHMAKING_BOTS_AFTER + a few seconds, and
plays a whole deal to its end; the bots never act out of turn or twice.
"""

import os
import random
import time

import pytest
from django.db import connection

from games import engine, selectors
from games.models import Event, Game, GameStatus
from tests.games.worker import Worker, database_url, flush_redis, use_broker

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]

BROKER = os.environ.get("CELERY_WORKER_TEST_BROKER", "redis://127.0.0.1:6379/13")
BOTS_AFTER = 2


@pytest.fixture
def worker(tmp_path):
    if connection.vendor != "postgresql":
        (pytest.fail if os.environ.get("CI") else pytest.skip)("real-worker tests need PostgreSQL")
    flush_redis(BROKER)
    previous = use_broker(BROKER)
    process = Worker(
        broker=BROKER,
        database=database_url(connection.settings_dict),
        workdir=tmp_path,
        env={
            "MATCHMAKING_BOTS_AFTER": str(BOTS_AFTER),
            "MATCHMAKING_INTERVAL": "0.5",
            "BOTS_DELAY_SECONDS": "0.1",
        },
    )
    try:
        process.start()
        yield process
    finally:
        process.kill()
        use_broker(*previous)
        flush_redis(BROKER)


def _wait_matched(client, ticket_id: int, timeout: float) -> dict:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ticket = client.get(f"/api/v1/matchmaking/tickets/{ticket_id}", {"wait": 1}).json()
        if ticket["status"] != "waiting":
            return ticket
    raise AssertionError(f"ticket {ticket_id} not matched after {timeout}s")


def test_a_lone_player_gets_four_bots_and_plays_a_whole_deal(worker, make_user, make_client, settings):
    settings.MATCHMAKING_BOTS_AFTER = BOTS_AFTER
    user, token = make_user()
    client = make_client(token)
    created = client.post("/api/v1/matchmaking/tickets", {"preset": "pagat", "bots": True}, format="json")
    assert created.status_code == 201, created.content
    started = time.monotonic()
    ticket = _wait_matched(client, created.json()["id"], timeout=BOTS_AFTER + 15)
    assert ticket["status"] == "matched" and time.monotonic() - started < BOTS_AFTER + 15, worker.log_tail()
    game_id, seat = ticket["game"], ticket["seat"]
    table = client.get(f"/api/v1/tables/{ticket['table']}").json()
    assert [s["user"]["is_bot"] for s in table["seats"]].count(True) == 4
    assert table["seats"][seat]["user"]["id"] == user.pk

    rng = random.Random(5)
    end = time.monotonic() + 240
    while time.monotonic() < end:
        view = client.get(f"/api/v1/games/{game_id}").json()
        if view["status"] != "running":
            break
        if view["legal_actions"]:
            action = rng.choice(view["legal_actions"])
            response = client.post(
                f"/api/v1/games/{game_id}/actions",
                {**action, "expected_version": view["version"]},
                format="json",
            )
            # A bot may have moved in between (a window answered by several seats at once).
            assert response.status_code in (200, 409), response.content
        else:
            client.get(f"/api/v1/games/{game_id}/events", {"after": 0, "wait": 0.5})
    else:
        raise AssertionError(f"the deal did not end:\n{worker.log_tail()}")

    game = Game.objects.get(pk=game_id)
    assert game.status in (GameStatus.OVER, GameStatus.VOID)
    assert game.bots == [s != seat for s in range(5)]
    # Nobody timed out: the bots acted before every deadline, through the engine (never out of turn).
    types = list(Event.objects.filter(game=game).values_list("type", flat=True))
    assert "timeout" not in types and "trustee" not in types
    # Each applied action is one row and one version: nothing applied twice.
    versions = list(
        Event.objects.filter(game=game, action__isnull=False)
        .order_by("seq")
        .values_list("version", flat=True)
    )
    assert versions == list(range(1, len(versions) + 1))
    rules = engine.preset(game.preset, **game.options)
    assert (
        engine.final_view(engine.replay(rules, game.setup, selectors.game_replay_log(game=game)))["scores"]
        == (game.final["scores"])
    )
