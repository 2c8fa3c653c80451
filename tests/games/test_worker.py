"""Timers on a real Celery worker (with beat), real Redis and the real PostgreSQL test database.

Rows must be committed for the worker to see them, hence `transaction=True`. Deadlines are the
shortest a table allows (1 s); a seat that timed out is on trustee and then plays at once, so a deal in
which nobody moves ends after a handful of timeouts.
"""

import os
import random
import time

import pytest
from django.db import connection
from django.utils import timezone

from games import engine, selectors
from games.models import Event, Game, GameStatus
from infra.timestamps import utc_iso
from tests.games.worker import Worker, database_url, flush_redis, use_broker

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]

# A Redis database of their own (bench/api_moves.py uses 15, bench/timer_lateness.py 14): it is flushed.
BROKER = os.environ.get("CELERY_WORKER_TEST_BROKER", "redis://127.0.0.1:6379/13")


@pytest.fixture
def worker(tmp_path):
    if connection.vendor != "postgresql":
        # scripts/test always sets DATABASE_URL: in CI this must run, never be skipped.
        reason = "real-worker tests need PostgreSQL (set DATABASE_URL)"
        (pytest.fail if os.environ.get("CI") else pytest.skip)(reason)
    flush_redis(BROKER)
    previous = use_broker(BROKER)
    process = Worker(broker=BROKER, database=database_url(connection.settings_dict), workdir=tmp_path)
    try:
        process.start()
        yield process
    finally:
        process.kill()
        use_broker(*previous)
        flush_redis(BROKER)


def _fast_table(make_table, **kwargs):
    setup = make_table(**kwargs)
    # make_table's tables use the default deadlines: shorten them and restart the current prompt's clock.
    from matchmaking.models import Table

    Table.objects.filter(pk=setup["table"]).update(play_seconds=1, prompt_seconds=1)
    return setup


def _restart_clock(game_id: int) -> None:
    """Give the current prompt a fresh 1-second deadline and schedule its task, as a move would."""
    from datetime import timedelta

    from django.db import transaction
    from django.utils import timezone

    from games import actions, selectors
    from games.work import GameWork

    with transaction.atomic():
        game = Game.objects.select_for_update().select_related("table").get(pk=game_id)
        game.deadline = timezone.now() + timedelta(seconds=1)
        work = GameWork(game=game)
        work.fields_changed("deadline")
        actions.work_commit(work=work, state=selectors.game_state(game=game))


def _wait_finished(game_id: int, worker: Worker, timeout: float) -> Game:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        game = Game.objects.get(pk=game_id)
        if game.status != GameStatus.RUNNING:
            return game
        time.sleep(0.1)
    raise AssertionError(f"deal {game_id} still running at version {game.version}:\n{worker.log_tail()}")


def _assert_consistent(game: Game) -> None:
    """One action per version, nothing applied twice, and the log replays to the stored state."""
    versions = list(
        Event.objects.filter(game=game, action__isnull=False)
        .order_by("seq")
        .values_list("version", flat=True)
    )
    assert versions == list(range(1, game.version + 1))
    replayed = engine.replay(
        engine.preset(game.preset, **game.options), game.setup, selectors.game_replay_log(game=game)
    )
    assert engine.final_view(replayed)["scores"] == game.final["scores"]


def _answer(setup, game_id: int, state, seat: int) -> None:
    action = engine.action_to_dict(engine.trustee_action(state, seat))
    setup["clients"][seat].post(
        f"/api/v1/games/{game_id}/actions", {k: v for k, v in action.items() if v}, format="json"
    )


def _sessions_opened() -> int:
    """Connections ever opened to this database (PostgreSQL's statistics: a session is counted at
    the latest when it ends)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
        return cursor.fetchone()[0]


def test_a_deal_where_every_seat_times_out_finishes_through_the_worker(make_table, worker):
    setup = _fast_table(make_table, setups=[{"seed": 11}], deals=1)
    sessions_before = _sessions_opened()
    _restart_clock(setup["game"])
    game = _wait_finished(setup["game"], worker, timeout=40)
    # The worker's processes kept their connections between tasks (infra/celery_signals.py):
    # Celery's default opened one per task (timeouts, trustee chains, the sweep, matchmaking).
    tasks_run = worker.log_path.read_text(errors="replace").count(" succeeded in ")
    assert _sessions_opened() - sessions_before <= 6 < tasks_run
    assert game.status in (GameStatus.OVER, GameStatus.VOID)
    _assert_consistent(game)
    if game.status == GameStatus.OVER:
        assert all(game.trustee) and game.unscored
    assert Event.objects.filter(game=game, type="timeout").exists()


def test_the_worker_takes_the_deals_end_and_deals_the_next_after_the_pause(make_table, worker):
    """docs/architecture.md "The end of a deal": the commit that ends the deal sends the table's task,
    whose step sends the next deal's, due after the table's pause; the worker runs both."""
    from accounts.models import FeedEvent
    from matchmaking.models import Table

    setup = _fast_table(make_table, setups=[{"seed": 11}], deals=3)
    Table.objects.filter(pk=setup["table"]).update(deal_pause_seconds=2)
    _restart_clock(setup["game"])
    first = _wait_finished(setup["game"], worker, timeout=40)
    end = time.monotonic() + 30
    while not (second := Game.objects.filter(table_id=setup["table"], number=1).first()):
        assert time.monotonic() < end, worker.log_tail()
        time.sleep(0.1)
    assert not Game.objects.get(pk=first.pk).table_pending
    # The second deal may itself have ended (every seat times out in a second) before this reads.
    over = FeedEvent.objects.get(user=setup["users"][0], type="deal_over", data__game=first.pk)
    assert over.data["next_deal"] is True
    assert (second.created_at - first.finished_at).total_seconds() >= 2  # not before the pause


def test_a_killed_worker_is_restarted_and_the_deal_still_finishes(make_table, worker):
    setup = _fast_table(make_table, setups=[{"seed": 12}], deals=1)
    game = Game.objects.get(pk=setup["game"])
    state = selectors.game_state(game=game)
    # The candidate answers by hand, so that the next prompt's timer is the one the dead worker holds.
    seat = engine.to_act(state)[0]
    action = engine.action_to_dict(engine.trustee_action(state, seat))
    response = setup["clients"][seat].post(
        f"/api/v1/games/{game.pk}/actions", {k: v for k, v in action.items() if v}, format="json"
    )
    assert response.status_code == 200
    worker.kill()  # SIGKILL: its reserved timer task is neither acknowledged nor executed
    deadline = Game.objects.get(pk=game.pk).deadline
    while timezone.now() <= deadline:  # the deadline passes with no worker to apply it
        time.sleep(0.05)
    game = Game.objects.get(pk=game.pk)
    assert game.status == GameStatus.RUNNING and game.deadline == deadline
    stuck_at = game.version
    worker.start()
    game = _wait_finished(game.pk, worker, timeout=60)
    assert game.version > stuck_at
    _assert_consistent(game)


def test_a_timer_racing_a_real_move_applies_exactly_once(make_table, worker):
    setup = _fast_table(make_table, setups=[{"seed": 13}], deals=0)
    rng = random.Random(5)
    outcomes = {"move": 0, "timer": 0}
    _restart_clock(setup["game"])
    for _ in range(60):
        game = Game.objects.select_related("table").get(pk=setup["game"])
        if game.status != GameStatus.RUNNING or sum(outcomes.values()) >= 8:
            break
        state = selectors.game_state(game=game)
        seats = engine.to_act(state)
        if len(seats) != 1 or game.trustee_entries[seats[0]] >= 3 or game.trustee[seats[0]]:
            # Not a race we want: answer by hand, so that few seats end up on trustee.
            for seat in seats:
                _answer(setup, game.pk, state, seat)
            time.sleep(0.05)
            continue
        seat, version = seats[0], game.version
        action = engine.action_to_dict(engine.trustee_action(state, seat))
        # Aim at the deadline itself: sometimes just before the timer, sometimes just after it.
        time.sleep(max(0.0, (game.deadline.timestamp() - time.time()) + rng.uniform(-0.05, 0.01)))
        payload = {**{k: v for k, v in action.items() if v}, "expected_version": version}
        response = setup["clients"][seat].post(f"/api/v1/games/{game.pk}/actions", payload, format="json")
        assert response.status_code in (200, 409), response.json()
        time.sleep(0.2)
        applied = list(Event.objects.filter(game_id=game.pk, version=version + 1, action__isnull=False))
        assert len(applied) == 1, applied
        assert applied[0].action[0] == seat
        after = Game.objects.get(pk=game.pk)
        if response.status_code == 200:
            outcomes["move"] += 1
        else:
            # The timer came first: the version moved on (or its auto-play ended the deal).
            assert response.json()["code"] in ("stale_version", "game_over")
            assert after.trustee[seat] or after.trustee_entries[seat] > game.trustee_entries[seat]
            outcomes["timer"] += 1
            if after.status == GameStatus.RUNNING and after.trustee[seat]:
                assert setup["clients"][seat].post(
                    f"/api/v1/games/{game.pk}/trustee", {"on": False}, format="json"
                ).status_code in (200, 409)
    assert sum(outcomes.values()) >= 3, outcomes
    game = Game.objects.get(pk=setup["game"])
    versions = list(
        Event.objects.filter(game=game, action__isnull=False)
        .order_by("seq")
        .values_list("version", flat=True)
    )
    assert versions == list(range(1, game.version + 1))


def test_a_worker_whose_database_connections_were_cut_reconnects_without_failing_a_task(make_table, worker):
    """Kept connections (infra/celery_signals.py) are checked before each task's first query: a
    database that dropped them (a restart, a failover) costs a reconnect, not a failed timeout."""
    setup = _fast_table(make_table, setups=[{"seed": 13}], deals=1)
    _restart_clock(setup["game"])
    end = time.monotonic() + 20
    while not Event.objects.filter(game_id=setup["game"], type="timeout").exists():
        assert time.monotonic() < end, worker.log_tail()
        time.sleep(0.05)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        assert cursor.fetchone()[0] >= 1  # the worker's kept connections
    game = _wait_finished(setup["game"], worker, timeout=40)
    _assert_consistent(game)
    log = worker.log_path.read_text(errors="replace")
    assert "raised unexpected" not in log and "connection is closed" not in log, worker.log_tail()


def test_a_worker_and_beat_stopped_for_longer_than_a_turn_put_nobody_on_trustee(make_table, worker):
    """docs/client-guide.md "Timers": the time the timers were out is given back to the prompt that
    was waiting; no seat goes on 托管 for it and no table closes, and the timers go on afterwards."""
    from datetime import timedelta

    from django.db import transaction
    from django.utils import timezone

    from games import actions, clock
    from games.models import ServiceHeartbeat
    from games.work import GameWork
    from matchmaking.models import Table, TableStatus

    setup = make_table(setups=[{"seed": 14}], deals=1)
    Table.objects.filter(pk=setup["table"]).update(play_seconds=3, prompt_seconds=3)
    end = time.monotonic() + 20
    ticks = ServiceHeartbeat.objects.filter(name=clock.TIMERS)
    while not ticks.filter(at__gte=timezone.now() - timedelta(seconds=1)):
        assert time.monotonic() < end, worker.log_tail()
        time.sleep(0.1)
    worker.kill()  # the worker and its embedded beat
    with transaction.atomic():  # a prompt with 3 s left, its deadline task sent to the stopped worker
        game = Game.objects.select_for_update().select_related("table").get(pk=setup["game"])
        game.deadline = timezone.now() + timedelta(seconds=3)
        state = selectors.game_state(game=game)
        work = GameWork(game=game)
        work.fields_changed("deadline")
        actions.work_commit(work=work, state=state)
    stopped_deadline = game.deadline
    time.sleep(3 + 2 + 1)  # longer than the turn, and than GAMES_OUTAGE_AFTER below
    worker.extra_env["GAMES_OUTAGE_AFTER"] = "2"
    worker.start()
    back = timezone.now()
    end = time.monotonic() + 20
    while not ticks.filter(at__gte=back):
        assert time.monotonic() < end, worker.log_tail()
        time.sleep(0.1)

    game = Game.objects.get(pk=setup["game"])
    assert game.trustee == [False] * 5, worker.log_tail()
    assert not Event.objects.filter(game=game, type="timeout").exists()
    assert game.deadline > back and game.deadline - stopped_deadline >= timedelta(seconds=6)
    assert Table.objects.get(pk=setup["table"]).status == TableStatus.PLAYING
    # The timers run again: the moved deadline is applied when it comes.
    moved = game.deadline
    end = time.monotonic() + 30
    while not Event.objects.filter(game=game, type="timeout").exists():
        assert time.monotonic() < end, worker.log_tail()
        time.sleep(0.1)
    first = Event.objects.filter(game=game, type="timeout").order_by("seq").first()
    assert first.data["deadline"] == utc_iso(moved)
