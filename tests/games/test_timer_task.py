"""One deadline task in flight per deal (games/timers.py, docs/rules.md §5 deadlines): which changes send a
task, and what the task does when it comes due. No worker: the service is called as the task calls it
(tests/games/test_worker.py runs a real one end to end)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import clock, engine, scheduling, selectors, services, timers
from games.models import Event, Game

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    """The deadline tasks sent after commit: [(game_id, at)]."""
    calls: list = []
    monkeypatch.setattr(scheduling, "game_timer_schedule", lambda *, game_id, at: calls.append((game_id, at)))
    return calls


def _game(game_id: int) -> Game:
    return Game.objects.select_related("table").get(pk=game_id)


def _move(setup, commit) -> Game:
    """The seat to act plays its default action over the API; after-commit effects run."""
    game = _game(setup["game"])
    state = selectors.game_state(game=game)
    seat = engine.to_act(state)[0]
    payload = {**engine.action_to_dict(engine.trustee_action(state, seat)), "expected_version": game.version}
    with commit(execute=True):
        response = setup["clients"][seat].post(f"/api/v1/games/{game.pk}/actions", payload, format="json")
    assert response.status_code == 200, response.json()
    return _game(game.pk)


def _snapshot(game_id: int) -> tuple:
    game = _game(game_id)
    return (
        game.version,
        game.last_seq,
        game.state,
        list(game.trustee),
        Event.objects.filter(game=game).count(),
    )


def test_the_first_deadline_arms_a_task_and_later_moves_send_none(
    make_table, sent, django_capture_on_commit_callbacks
):
    setup = make_table()
    game = _game(setup["game"])
    assert game.timer_at == game.deadline  # armed when the deal was dealt
    armed = game.timer_at
    for _ in range(3):
        game = _move(setup, django_capture_on_commit_callbacks)
        assert game.deadline >= armed
        assert game.timer_at == armed
    assert sent == []


def test_a_sooner_deadline_or_a_lost_task_sends_a_new_one(
    make_table, sent, django_capture_on_commit_callbacks, settings
):
    setup = make_table()
    # The task in flight is due after the next deadline: a task for the sooner one is sent.
    Game.objects.filter(pk=setup["game"]).update(timer_at=timezone.now() + timedelta(hours=1))
    game = _move(setup, django_capture_on_commit_callbacks)
    assert sent == [(game.pk, game.deadline)] and game.timer_at == game.deadline
    # The task in flight is overdue by more than the grace: taken as lost, replaced.
    overdue = timezone.now() - timedelta(seconds=settings.GAMES_SWEEP_GRACE + 1)
    Game.objects.filter(pk=game.pk).update(timer_at=overdue)
    game = _move(setup, django_capture_on_commit_callbacks)
    assert sent[-1] == (game.pk, game.deadline) and len(sent) == 2


def test_a_replaced_task_does_nothing(make_table, sent, django_capture_on_commit_callbacks):
    setup = make_table()
    game = _game(setup["game"])
    stale = timers.timer_token(game.timer_at - timedelta(seconds=1))
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=5))
    before = _snapshot(game.pk)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.game_timer_fire(game_id=game.pk, at=stale) is False
    assert _snapshot(game.pk) == before and sent == []
    assert _game(game.pk).timer_at == game.timer_at


def test_a_task_due_before_a_moved_deadline_waits_again(make_table, sent, django_capture_on_commit_callbacks):
    setup = make_table()
    game = _game(setup["game"])
    due = timezone.now() - timedelta(seconds=1)
    Game.objects.filter(pk=game.pk).update(timer_at=due)
    before = _snapshot(game.pk)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.game_timer_fire(game_id=game.pk, at=timers.timer_token(due)) is False
    game = _game(game.pk)
    assert _snapshot(game.pk) == before  # nobody timed out
    assert game.timer_at == game.deadline and sent == [(game.pk, game.deadline)]


def test_a_task_due_at_a_passed_deadline_times_out_once_and_arms_the_next(
    make_table, sent, django_capture_on_commit_callbacks
):
    setup = make_table()
    game = _game(setup["game"])
    passed = timezone.now() - timedelta(seconds=1)
    Game.objects.filter(pk=game.pk).update(deadline=passed, timer_at=passed)
    (seat,) = engine.to_act(selectors.game_state(game=game))
    with django_capture_on_commit_callbacks(execute=True):
        assert services.game_timer_fire(game_id=game.pk, at=timers.timer_token(passed)) is True
    after = _game(game.pk)
    assert after.trustee[seat] is True and after.version > game.version
    assert Event.objects.filter(game=after, type="timeout").count() == 1
    assert after.deadline > timezone.now() and after.timer_at == after.deadline
    assert sent == [(after.pk, after.deadline)]
    # The same task delivered twice: the second finds its due time replaced and does nothing.
    once = _snapshot(game.pk)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.game_timer_fire(game_id=game.pk, at=timers.timer_token(passed)) is False
    assert _snapshot(game.pk) == once and len(sent) == 1


def test_the_task_of_a_finished_deal_clears_itself(make_table, sent, django_capture_on_commit_callbacks):
    setup = make_table()
    game = _game(setup["game"])
    Game.objects.filter(pk=game.pk).update(status="over", deadline=None)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.game_timer_fire(game_id=game.pk, at=timers.timer_token(game.timer_at)) is False
    assert _game(game.pk).timer_at is None and sent == []


def test_a_timeout_writes_with_the_trustees_action_in_order(
    make_table, sent, django_capture_on_commit_callbacks
):
    """games/work.py: the timeout event, the seat's trustee switch, the cleared and the
    re-armed timer go in the trustee action's own statement. The log keeps their order."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    setup = make_table()
    game = _game(setup["game"])
    passed = timezone.now() - timedelta(seconds=1)
    Game.objects.filter(pk=game.pk).update(deadline=passed, timer_at=passed)
    (seat,) = engine.to_act(selectors.game_state(game=game))
    # The timers' clock ran a moment ago (games/clock.py): its own row, written at most once a second
    # in a transaction of its own, is not part of the timeout's statement.
    clock.timers_clock_tick()
    with django_capture_on_commit_callbacks(execute=True), CaptureQueriesContext(connection) as queries:
        assert services.game_timer_fire(game_id=game.pk, at=timers.timer_token(passed)) is True
    after = _game(game.pk)
    events = list(Event.objects.filter(game=after, seq__gt=game.last_seq).order_by("seq"))
    assert [event.seq for event in events] == list(range(game.last_seq + 1, after.last_seq + 1))
    assert [event.type for event in events[:2]] == ["timeout", "trustee"]
    assert events[1].data == {"type": "trustee", "seat": seat, "on": True}
    assert after.version > game.version and events[-1].version == after.version
    assert any(event.action is not None for event in events[2:])  # the trustee's action
    assert after.trustee[seat] is True and after.trustee_entries[seat] == 1
    assert after.timer_at == after.deadline and sent == [(after.pk, after.deadline)]
    if connection.vendor == "postgresql":
        writes = [
            q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(("WITH", "INSERT", "UPDATE"))
        ]
        assert len(writes) == 1, writes
        assert '"timer_at"' in writes[0] and "games_event" in writes[0]
