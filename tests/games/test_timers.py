"""The timer and 托管 services of games.services (docs/rules.md §5): deadlines, timeouts, auto-play, the
trustee lock, dissolving, unscored all-trustee deals and the sweep. No worker here: the services are
called as the tasks call them (tests/games/test_worker.py runs a real one)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import actions, engine, selectors, services, tasks
from games.models import Event, Game, GameStatus
from infra.timestamps import utc_iso
from matchmaking.models import Table, TableStatus
from tests.conftest import assert_error
from tests.games.trustees import autoplay_to_the_end, finish_with_trustees, set_trustee

pytestmark = pytest.mark.django_db


def _game(game_id: int) -> Game:
    return Game.objects.select_related("table").get(pk=game_id)


def _overdue(game_id: int, seconds: float = 5) -> Game:
    Game.objects.filter(pk=game_id).update(deadline=timezone.now() - timedelta(seconds=seconds))
    return _game(game_id)


def _snapshot(game_id: int) -> tuple:
    game = _game(game_id)
    events = Event.objects.filter(game=game).count()
    return game.version, game.last_seq, game.state, list(game.trustee), events


def test_every_prompt_has_a_deadline_from_the_table_settings(make_table):
    before = timezone.now()
    setup = make_table()
    game = _game(setup["game"])
    state = selectors.game_state(game=game)
    assert state.phase == "emperor_selection"
    # prompt_seconds (15 by default) outside play.
    assert before + timedelta(seconds=14) < game.deadline <= timezone.now() + timedelta(seconds=15)
    view = setup["clients"][0].get(f"/api/v1/games/{setup['game']}").json()
    assert view["deadline"] == utc_iso(game.deadline)


def test_timer_for_an_older_version_does_nothing(make_table):
    setup = make_table()
    game = _overdue(setup["game"])
    before = _snapshot(game.pk)
    assert services.game_deadline_expire(game_id=game.pk, version=game.version + 1) is False
    if game.version:
        assert services.game_deadline_expire(game_id=game.pk, version=game.version - 1) is False
    assert _snapshot(game.pk) == before


def test_timer_that_arrives_before_the_deadline_does_nothing(make_table):
    setup = make_table()
    game = _game(setup["game"])
    assert game.deadline > timezone.now()
    before = _snapshot(game.pk)
    assert services.game_deadline_expire(game_id=game.pk, version=game.version) is False
    assert _snapshot(game.pk) == before


def test_timer_of_a_missing_or_finished_game_does_nothing(make_table):
    assert services.game_deadline_expire(game_id=10**9, version=0) is False
    setup = make_table()
    Game.objects.filter(pk=setup["game"]).update(status=GameStatus.OVER, deadline=timezone.now())
    assert services.game_deadline_expire(game_id=setup["game"], version=_game(setup["game"]).version) is False


def test_timeout_plays_the_default_action_and_puts_the_seat_on_trustee(make_table):
    setup = make_table()
    game = _overdue(setup["game"])
    state = selectors.game_state(game=game)
    (seat,) = engine.to_act(state)
    expected = engine.action_to_dict(engine.trustee_action(state, seat))

    assert tasks.game_deadline_expire.run(game_id=game.pk, version=game.version) is True

    game = _game(game.pk)
    assert game.trustee[seat] is True and game.trustee_entries[seat] == 1
    assert sum(game.trustee) == 1
    actions = list(Event.objects.filter(game=game, action__isnull=False).order_by("seq"))
    assert actions[0].action == [seat, expected]
    types = list(Event.objects.filter(game=game).order_by("seq").values_list("type", flat=True))
    assert "timeout" in types and types.index("timeout") < types.index("trustee")
    # A new prompt, a new deadline in the future (or the deal is over).
    assert game.status != GameStatus.RUNNING or game.deadline > timezone.now()


def test_the_same_timer_twice_acts_once(make_table):
    setup = make_table()
    game = _overdue(setup["game"])
    assert services.game_deadline_expire(game_id=game.pk, version=game.version) is True
    after_first = _snapshot(game.pk)
    assert services.game_deadline_expire(game_id=game.pk, version=game.version) is False
    assert _snapshot(game.pk) == after_first


def test_a_seat_on_trustee_acts_as_soon_as_it_is_prompted(make_table):
    setup = make_table()
    game = _game(setup["game"])
    (seat,) = engine.to_act(selectors.game_state(game=game))
    version = game.version
    response = set_trustee(setup, seat, True)
    assert response.status_code == 200, response.json()
    game = _game(game.pk)
    # No waiting for the deadline: the candidate's default answer is already applied.
    assert game.version > version
    assert seat not in engine.to_act(selectors.game_state(game=game)) or game.status != GameStatus.RUNNING


def test_more_than_three_trustee_entries_lock_the_seat(make_table):
    setup = make_table()
    # A seat that is not prompted now, so that turning trustee on does not play for it.
    game = _game(setup["game"])
    seat = next(s for s in range(5) if s not in engine.to_act(selectors.game_state(game=game)))
    for _ in range(3):
        assert set_trustee(setup, seat, True).status_code == 200
        assert set_trustee(setup, seat, False).status_code == 200
    assert set_trustee(setup, seat, True).status_code == 200
    before = _snapshot(setup["game"])
    assert_error(set_trustee(setup, seat, False), 409, "trustee_locked")
    assert _snapshot(setup["game"]) == before
    game = _game(setup["game"])
    assert game.trustee[seat] is True and game.trustee_entries[seat] == 4


def test_a_timed_out_seat_counts_an_entry_toward_the_lock(make_table):
    setup = make_table()
    game = _overdue(setup["game"])
    (seat,) = engine.to_act(selectors.game_state(game=game))
    services.game_deadline_expire(game_id=game.pk, version=game.version)
    assert _game(game.pk).trustee_entries[seat] == 1


def test_a_deal_ending_with_a_seat_on_trustee_dissolves_a_lianzhong_table(make_table):
    """docs/rules.md §5: the 联众 presets' rule (elsewhere the seat has its return time: §5 D)."""
    setup = make_table(preset="lianzhong_classic", deals=5)
    game = finish_with_trustees(setup, humans=(0, 1, 2, 3))
    assert game.status in (GameStatus.OVER, GameStatus.VOID)
    table = Table.objects.get(pk=setup["table"])
    if game.status == GameStatus.OVER:
        assert table.status == TableStatus.DISSOLVED
        assert Game.objects.filter(table=table).count() == 1
        assert game.unscored is False
        assert table.scores == game.final["scores"]


def test_a_deal_with_all_five_on_trustee_is_kept_but_not_scored(make_table):
    setup = make_table(preset="lianzhong_simple", deals=5)
    game = finish_with_trustees(setup, humans=())
    assert game.status == GameStatus.OVER
    assert game.unscored is True and game.final["scores"]
    table = Table.objects.get(pk=setup["table"])
    assert table.scores == [0] * 5 and table.deals_done == 0
    assert table.status == TableStatus.DISSOLVED
    assert services.game_ratings_update(game_id=game.pk) is False
    view = setup["clients"][0].get(f"/api/v1/tables/{setup['table']}").json()
    assert view["scores"] == [0] * 5
    assert view["games"][0]["unscored"] is True
    final = setup["clients"][0].get(f"/api/v1/games/{game.pk}/final").json()
    assert final["unscored"] is True and final["scores"] == game.final["scores"]


def test_a_window_keeps_its_deadline_while_seats_answer():
    """`_deadline_next` keeps the deadline of a window still waiting for answers (one prompt)."""
    rules = engine.preset("weihai")
    for seed in range(200):
        state = engine.new_deal(rules, seed=seed)
        for _ in range(10):
            if state.window is not None and len(engine.to_act(state)) > 1:
                break
            seat = engine.to_act(state)[0]
            state, _ = engine.apply_action(state, seat, engine.trustee_action(state, seat))
        if state.window is not None and len(engine.to_act(state)) > 1:
            break
    else:
        pytest.fail("no multi-seat window reached in 200 weihai deals")
    seat = engine.to_act(state)[0]
    after, _ = engine.apply_action(state, seat, engine.Action("stay"))
    assert actions.same_prompt(before=state, after=after)
    game = Game(deadline=timezone.now())
    assert actions.deadline_next(game=game, before=state, after=after) == game.deadline


def test_sweep_applies_only_deadlines_overdue_by_more_than_the_grace(make_table):
    late = make_table()
    recent = make_table()
    _overdue(late["game"], seconds=10)
    _overdue(recent["game"], seconds=0.5)
    late_version, recent_version = _game(late["game"]).version, _game(recent["game"]).version
    assert tasks.games_deadlines_sweep.run() == 1
    assert _game(late["game"]).version > late_version
    assert _game(recent["game"]).version == recent_version
    assert services.games_deadlines_sweep(grace=0) == 1
    assert _game(recent["game"]).version > recent_version


def test_a_long_trustee_chain_goes_on_in_bounded_steps(make_table):
    setup = make_table()
    for seat in range(4):
        assert set_trustee(setup, seat, True).status_code == 200
    before = _game(setup["game"]).version
    assert set_trustee(setup, 4, True).status_code == 200
    game = _game(setup["game"])
    # One request applies at most MAX_AUTOPLAY_ACTIONS; the rest is left to game_trustee_autoplay.
    assert game.status == GameStatus.RUNNING
    assert game.version - before == actions.MAX_AUTOPLAY_ACTIONS
    assert services.game_trustee_autoplay(game_id=game.pk, version=game.version - 1) is False
    assert services.game_trustee_autoplay(game_id=game.pk, version=game.version) is True
    assert _game(game.pk).version == game.version + actions.MAX_AUTOPLAY_ACTIONS
    assert autoplay_to_the_end(game.pk).status == GameStatus.OVER


def test_a_lost_auto_play_task_is_made_good_at_the_deadline(make_table):
    setup = make_table()
    for seat in range(5):
        assert set_trustee(setup, seat, True).status_code == 200
    game = _overdue(setup["game"])
    assert game.status == GameStatus.RUNNING
    timeouts = Event.objects.filter(game=game, type="timeout").count()
    assert tasks.games_deadlines_sweep.run() == 1
    game = _game(game.pk)
    # Nobody timed out: the seats were on trustee already; the chain simply went on.
    assert Event.objects.filter(game=game, type="timeout").count() == timeouts
    assert game.trustee_entries == [1] * 5


def _to_prompt_with_one_answer(setup) -> tuple[Game, int]:
    """Play the default answers until a prompted seat has exactly one legal action."""
    for _ in range(40):
        game = _game(setup["game"])
        state = selectors.game_state(game=game)
        seats = engine.to_act(state)
        single = [seat for seat in seats if len(engine.legal_actions(state, seat)) == 1]
        if single:
            return game, single[0]
        seat = seats[0]
        action = engine.action_to_dict(engine.trustee_action(state, seat))
        response = setup["clients"][seat].post(
            f"/api/v1/games/{game.pk}/actions", {k: v for k, v in action.items() if v}, format="json"
        )
        assert response.status_code == 200, response.json()
    raise AssertionError("no prompt with a single legal answer")


@pytest.mark.parametrize(("preset", "seed"), [("campus", 1), ("lianzhong_classic", 1), ("wuren", 1)])
def test_a_timed_out_prompt_with_one_legal_answer_is_answered_without_trustee(make_table, preset, seed):
    """docs/rules.md §5: a seat whose only answer was forced is not put on 托管 for ignoring it; a seat
    asked in the same window that had a choice is."""
    setup = make_table(preset=preset, setups=[{"seed": seed}])
    game, seat = _to_prompt_with_one_answer(setup)
    state = selectors.game_state(game=game)
    asked = engine.to_act(state)
    (only,) = engine.legal_actions(state, seat)
    with_choice = [other for other in asked if len(engine.legal_actions(state, other)) > 1]
    entries = list(game.trustee_entries)
    game = _overdue(game.pk)

    assert services.game_deadline_expire(game_id=game.pk, version=game.version) is True

    after = _game(game.pk)
    assert after.trustee[seat] is False and after.trustee_entries[seat] == entries[seat]
    assert all(after.trustee[other] for other in with_choice)
    assert Event.objects.filter(game=game, type="timeout").count() == 1
    later = Event.objects.filter(game=game, version__gt=game.version, action__isnull=False).order_by("seq")
    answered = [row.action[1] for row in later if row.action[0] == seat]
    assert answered[:1] == [engine.action_to_dict(only)]
