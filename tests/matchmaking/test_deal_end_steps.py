"""The end of a deal as explicit steps (docs/architecture.md "The end of a deal"): games leaves the
finished deal `table_pending` and sends matchmaking's task after the commit; the table takes it once,
tallies it, says `deal_over` to its players and deals the next deal after its pause, once.

These tests run on the production profile: the table's pause is the model's default, never 0."""

import random
from datetime import timedelta

import pytest
from celery import current_app
from django.conf import settings
from django.utils import timezone

from accounts.feed_apis import TABLE_CLOSED_REASONS
from games import scheduling
from games.models import Game, GameStatus
from matchmaking import services
from matchmaking.models import (
    DEFAULT_DEAL_PAUSE_SECONDS,
    SEAT_TAKEN_BY_BOT,
    Table,
    TableClosedReason,
    TableEvent,
    TableStatus,
)
from tests.api.playing import play_deal
from tests.conftest import feed_entries

pytestmark = pytest.mark.django_db


def _played(setup, seed: int = 21) -> Game:
    """A deal played out through the API, its table's steps not run (no worker: `db` never commits)."""
    game = play_deal(setup["clients"], setup["game"], random.Random(seed), table_steps=False)
    assert game.status == GameStatus.OVER, "this seed's deal must be played out, not void"
    return game


def test_the_finished_deal_waits_for_its_table_which_takes_it_once(make_table):
    setup = make_table(deals=3)
    game = _played(setup)
    table = Table.objects.get(pk=setup["table"])
    assert table.deal_pause_seconds == DEFAULT_DEAL_PAUSE_SECONDS > 0
    # Nothing of the table's flow ran in the move's transaction.
    assert game.table_pending and table.deals_done == 0 and table.next_deal_at is None
    assert not TableEvent.objects.filter(table=table, type="deal_over").exists()

    assert services.table_deal_end(game_id=game.pk) is True
    assert services.table_deal_end(game_id=game.pk) is False  # a repeated task: nothing twice
    table.refresh_from_db()
    assert table.deals_done == 1 and table.scores == game.final["scores"]
    assert TableEvent.objects.filter(table=table, type="deal_over").count() == 1
    assert table.next_deal_at >= game.finished_at + timedelta(seconds=DEFAULT_DEAL_PAUSE_SECONDS)
    # The pause: the view and the lobby say when; nothing is dealt before it.
    detail = setup["staff"].get(f"/api/v1/tables/{table.pk}").json()
    assert detail["current_game"] is None and detail["next_deal_at"] is not None
    assert services.table_deal_next(table_id=table.pk) is False
    assert Game.objects.filter(table=table).count() == 1

    for client in setup["clients"]:
        (entry,) = feed_entries(client, "deal_over")
        assert entry["table"] == table.pk and entry["game"] == game.pk
        assert entry["scores"] == game.final["scores"] and entry["totals"] == table.scores
        assert entry["next_deal"] is True and entry["next_deal_at"] == detail["next_deal_at"]
        assert client.get("/api/v1/me/active").json()["tables"][0]["next_deal_at"] == detail["next_deal_at"]

    Table.objects.filter(pk=table.pk).update(next_deal_at=timezone.now())  # the pause is over
    assert services.table_deal_next(table_id=table.pk) is True
    assert services.table_deal_next(table_id=table.pk) is False  # two workers, a retried task: one deal
    assert Game.objects.filter(table=table, status=GameStatus.RUNNING).count() == 1
    assert Table.objects.get(pk=table.pk).next_deal_at is None


def test_the_commit_sends_the_tables_task_by_name_and_it_runs(
    make_table, monkeypatch, django_capture_on_commit_callbacks
):
    """games sends GAMES_DEAL_END_TASK after the commit; the task is registered and runs in-process
    (`apply`, as a worker would)."""
    current_app.loader.import_default_modules()  # the worker's autodiscovery of tasks modules
    setup = make_table(deals=3)
    sent: list[tuple[str, dict, object]] = []
    monkeypatch.setattr(
        current_app, "send_task", lambda name, kwargs=None, eta=None, **_: sent.append((name, kwargs, eta))
    )
    with django_capture_on_commit_callbacks(execute=True):
        game = _played(setup)
    ends = [(name, kwargs) for name, kwargs, _ in sent if name == settings.GAMES_DEAL_END_TASK]
    assert ends == [("matchmaking.table_deal_end", {"game_id": game.pk})]

    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert current_app.tasks[settings.GAMES_DEAL_END_TASK].apply(kwargs={"game_id": game.pk}).get()
    ((name, kwargs, eta),) = [row for row in sent if row[0] == "matchmaking.table_deal_next"]
    assert kwargs == {"table_id": setup["table"]} and eta == Table.objects.get(pk=setup["table"]).next_deal_at
    Table.objects.filter(pk=setup["table"]).update(next_deal_at=timezone.now())
    assert current_app.tasks[name].apply(kwargs=kwargs).get() is True
    assert Game.objects.filter(table_id=setup["table"], status=GameStatus.RUNNING).exists()


def test_a_lost_task_is_made_good_by_the_sweep(make_table, monkeypatch):
    setup = make_table(deals=3)
    game = _played(setup)
    # The task was never sent (a broker down at the commit): the sweep finds the deal, after its grace.
    assert services.tables_deals_sweep(grace=60) == 0
    assert services.tables_deals_sweep(grace=0) == 1
    assert not Game.objects.get(pk=game.pk).table_pending
    # ...and deals the next deal once it has been due for the grace (its task lost as well).
    Table.objects.filter(pk=setup["table"]).update(next_deal_at=timezone.now() - timedelta(seconds=5))
    assert services.tables_deals_sweep(grace=1) == 1
    assert services.tables_deals_sweep(grace=1) == 0
    assert Game.objects.filter(table_id=setup["table"]).count() == 2


def test_a_player_who_leaves_during_the_pause_closes_the_table_and_everyone_hears_why(make_table):
    setup = make_table(deals=3)
    game = _played(setup)
    assert services.table_deal_end(game_id=game.pk)
    left = setup["clients"][4].post(f"/api/v1/tables/{setup['table']}/leave", {}, format="json")
    assert left.status_code == 200
    Table.objects.filter(pk=setup["table"]).update(next_deal_at=timezone.now())
    assert services.table_deal_next(table_id=setup["table"]) is True
    table = Table.objects.get(pk=setup["table"])
    assert table.status == TableStatus.DISSOLVED and table.closed_reason == TableClosedReason.PLAYER_LEFT
    assert table.scores == game.final["scores"]  # leaving between deals costs nothing
    assert Game.objects.filter(table=table).count() == 1
    for client in setup["clients"][:4]:
        assert feed_entries(client, "table_closed") == [
            {
                "type": "table_closed",
                "seq": feed_entries(client, "table_closed")[0]["seq"],
                "table": table.pk,
                "reason": "player_left",
            }
        ]
    assert feed_entries(setup["clients"][4], "table_closed") == []  # no longer seated there


def test_the_last_deal_says_no_next_deal_and_the_table_closed(make_table):
    setup = make_table(deals=1)
    game = _played(setup)
    assert services.table_deal_end(game_id=game.pk)
    for client in setup["clients"]:
        (over,) = feed_entries(client, "deal_over")
        assert over["next_deal"] is False and over["next_deal_at"] is None
        (closed,) = feed_entries(client, "table_closed")
        assert closed["reason"] == "finished" and closed["seq"] > over["seq"]
        assert client.get("/api/v1/me/active").json()["tables"] == []


def test_the_feeds_closing_reasons_are_the_tables_and_away():
    assert set(TABLE_CLOSED_REASONS) == {*TableClosedReason.values, SEAT_TAKEN_BY_BOT}


def test_a_table_setting_chooses_the_pause_and_zero_is_allowed(make_user, make_client):
    _, token = make_user(staff=True)
    client = make_client(token)
    created = client.post(
        "/api/v1/tables",
        {"preset": "weihai", "settings": {"deal_pause_seconds": 0, "return_seconds": 60}},
        format="json",
    )
    assert created.status_code == 201, created.json()
    assert created.json()["settings"] == {
        "play_seconds": 20,
        "prompt_seconds": 15,
        "deal_pause_seconds": 0,
        "return_seconds": 60,
    }
    default = client.post("/api/v1/tables", {"preset": "weihai"}, format="json").json()
    assert default["settings"]["deal_pause_seconds"] == DEFAULT_DEAL_PAUSE_SECONDS
    refused = client.post(
        "/api/v1/tables", {"preset": "weihai", "settings": {"deal_pause_seconds": -1}}, format="json"
    )
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_request"


def test_scheduling_a_deal_end_that_cannot_be_sent_only_logs(monkeypatch, caplog):
    def down(*args, **kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(current_app, "send_task", down)
    scheduling.deal_end_schedule(game_id=1)
    assert "deal-end task for game 1 not scheduled" in caplog.text
