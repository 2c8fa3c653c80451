"""Time the service was unavailable is not charged to players (games/clock.py, docs/client-guide.md
"Timers"): after the timers stood still for longer than GAMES_OUTAGE_AFTER, deadlines move on by the
time lost before any is applied. Services called as the tasks call them; tests/games/test_worker.py
stops a real worker and beat for longer than a turn."""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from games import clock, services, timers
from games.models import Event, Game, ServiceHeartbeat
from matchmaking.models import Table, TableStatus

pytestmark = pytest.mark.django_db


def _timers_last_ran(seconds_ago: float) -> None:
    ServiceHeartbeat.objects.update_or_create(
        name=clock.TIMERS, defaults={"at": timezone.now() - timedelta(seconds=seconds_ago)}
    )


def _due(game_id: int, seconds_ago: float) -> Game:
    """The deal's deadline passed `seconds_ago`, and its task is the one due then."""
    at = timezone.now() - timedelta(seconds=seconds_ago)
    Game.objects.filter(pk=game_id).update(deadline=at, timer_at=at)
    return Game.objects.get(pk=game_id)


@override_settings(GAMES_OUTAGE_AFTER=10)
def test_a_deadline_that_passed_while_the_timers_stood_still_moves_on_instead_of_firing(make_table):
    setup = make_table()
    _timers_last_ran(60)  # the worker and beat stopped a minute ago...
    game = _due(setup["game"], 30)  # ...with 30 s left on this prompt
    before = timezone.now()

    # The deal's deadline task arrives first when they come back.
    assert services.game_timer_fire(game_id=game.pk, at=timers.timer_token(game.timer_at)) is False

    after = Game.objects.get(pk=game.pk)
    assert after.trustee == [False] * 5 and not Event.objects.filter(game=game, type="timeout").exists()
    assert after.version == game.version and after.state == game.state
    # It has the 30 s it had left when the timers stopped (60 s lost).
    left = (after.deadline - before).total_seconds()
    assert 29 <= left <= 31, left
    assert after.timer_at == after.deadline
    assert ServiceHeartbeat.objects.get(name=clock.TIMERS).at >= before
    # The sweep that follows finds nothing overdue; the table still plays.
    assert services.games_deadlines_sweep() == 0
    assert Game.objects.get(pk=game.pk).trustee == [False] * 5
    assert Table.objects.get(pk=setup["table"]).status == TableStatus.PLAYING


@override_settings(GAMES_OUTAGE_AFTER=10)
def test_the_sweep_moves_every_running_deal_on_once(make_table):
    first, second = make_table(), make_table()
    _timers_last_ran(100)
    _due(first["game"], 40)
    _due(second["game"], 90)
    before = timezone.now()

    lost = clock.timers_clock_tick()
    assert lost is not None and 99 <= lost.total_seconds() <= 102
    assert clock.timers_clock_tick() is None  # the second run finds the clock running
    assert services.games_deadlines_sweep() == 0
    for setup, had in ((first, 60), (second, 10)):
        game = Game.objects.get(pk=setup["game"])
        assert had - 1 <= (game.deadline - before).total_seconds() <= had + 2
        assert game.trustee == [False] * 5


@override_settings(GAMES_OUTAGE_AFTER=10)
def test_deadlines_that_pass_while_the_timers_run_are_applied_as_always(make_table):
    setup = make_table()
    _timers_last_ran(3)  # the sweep ran 3 s ago: no outage
    game = _due(setup["game"], 5)

    assert services.game_timer_fire(game_id=game.pk, at=timers.timer_token(game.timer_at)) is True

    after = Game.objects.get(pk=game.pk)
    assert any(after.trustee) and Event.objects.filter(game=game, type="timeout").exists()


@override_settings(GAMES_OUTAGE_AFTER=10)
def test_a_deadline_overdue_before_the_timers_stopped_is_not_moved(make_table):
    """Only time the timers were out is given back: a deadline the sweep should already have applied
    when they stopped is applied now."""
    setup = make_table()
    _timers_last_ran(60)
    game = _due(setup["game"], 120)

    assert services.games_deadlines_sweep() == 1

    assert any(Game.objects.get(pk=game.pk).trustee)


def test_the_first_tick_of_a_new_deployment_moves_nothing(make_table):
    setup = make_table()
    game = _due(setup["game"], 30)
    assert not ServiceHeartbeat.objects.exists()

    assert clock.timers_clock_tick() is None

    assert Game.objects.get(pk=game.pk).deadline == game.deadline
    assert ServiceHeartbeat.objects.filter(name=clock.TIMERS).exists()


@override_settings(GAMES_OUTAGE_AFTER=10)
def test_a_stall_with_no_running_deal_is_no_warning(caplog):
    """scripts/start restarted after a pause: nothing moved, nothing for the newcomer's terminal."""
    _timers_last_ran(60)

    with caplog.at_level("INFO", logger="games.clock"):
        assert clock.timers_clock_tick() is not None

    assert [record.levelname for record in caplog.records if record.name == "games.clock"] == ["INFO"]
