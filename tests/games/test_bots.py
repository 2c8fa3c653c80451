"""games.services.game_bots_act (docs/matchmaking.md "Bots"; docs/architecture.md "Who acts besides players"):
bot seats act through the same path as a player's move, only at the version they were scheduled for."""

import json

import pytest
from django.db import transaction

from games import engine, selectors, services
from games.models import Event, Game, GameStatus
from matchmaking import services as table_services

pytestmark = pytest.mark.django_db


def _table_with_bots(make_user, bot_seats, preset="weihai", seed=None, bot_level=""):
    """A table whose `bot_seats` are taken by bot users and the others by players; returns the game."""
    from accounts.models import User

    creator, _ = make_user(staff=True)
    setups = [{"seed": seed}] if seed is not None else None
    table = table_services.table_create(
        creator=creator, preset=preset, options={}, setups=setups, bot_level=bot_level
    )
    for seat in range(5):
        if seat in bot_seats:
            user = User.objects.create_user(username=f"test-bot-{table.pk}-{seat}", is_bot=True)
            user.set_unusable_password()
            user.save()
        else:
            user, _ = make_user()
        table_services.table_join(table_id=table.pk, user=user, seat=seat)
    return Game.objects.get(table=table, status=GameStatus.RUNNING)


def test_a_game_knows_its_bot_seats(make_user):
    game = _table_with_bots(make_user, {1, 3})
    assert game.bots == [False, True, False, True, False]


def test_prompted_bots_act_once_at_their_version_and_a_stale_task_does_nothing(make_user):
    game = _table_with_bots(make_user, {0, 1, 2, 3, 4})
    state = selectors.game_state(game=game)
    prompted = engine.to_act(state)
    assert prompted, "a fresh deal prompts someone"
    version = game.version
    assert services.game_bots_act(game_id=game.pk, version=version) is True
    game.refresh_from_db()
    assert game.version > version
    acted = list(Event.objects.filter(game=game, action__isnull=False).values_list("action", flat=True))
    assert {seat for seat, _ in acted} >= {prompted[0]}
    # Every bot choice was a legal action, so the stored log replays to the stored state.
    rules = engine.preset(game.preset, **game.options)
    replayed = engine.replay(rules, game.setup, selectors.game_replay_log(game=game))
    assert json.loads(json.dumps(engine.to_json(replayed))) == game.state
    # The same task again (a duplicate) or an older one finds another version and changes nothing.
    after = game.version
    assert services.game_bots_act(game_id=game.pk, version=version) is False
    assert services.game_bots_act(game_id=game.pk, version=after - 1) is False
    game.refresh_from_db()
    assert game.version == after


def test_bots_never_act_for_a_human_seat(make_user):
    seed = 4242
    first = engine.new_deal(engine.preset("weihai"), seed=seed, start_seat=0)
    prompted = set(engine.to_act(first))
    bot_seat = min(set(range(5)) - prompted)
    game = _table_with_bots(make_user, {bot_seat}, seed=seed)
    assert set(engine.to_act(selectors.game_state(game=game))) == prompted
    assert services.game_bots_act(game_id=game.pk, version=game.version) is False
    assert Game.objects.get(pk=game.pk).version == game.version


def test_a_deal_of_bots_plays_to_its_end_through_the_service(make_user):
    game = _table_with_bots(make_user, {0, 1, 2, 3, 4}, preset="pagat")
    for _ in range(2000):
        game.refresh_from_db()
        if game.status != GameStatus.RUNNING:
            break
        with transaction.atomic():
            assert services.game_bots_act(game_id=game.pk, version=game.version)
    game.refresh_from_db()
    assert game.status in (GameStatus.OVER, GameStatus.VOID)
    assert game.final is not None and sum(len(hand) for hand in game.final["hands"]) > 0


def _levels_asked(monkeypatch) -> list[str]:
    asked = []
    real = engine.bot_action

    def spy(view, *, level="normal", rng=None):
        asked.append(level)
        return real(view, level=level, rng=rng)

    monkeypatch.setattr(engine, "bot_action", spy)
    return asked


@pytest.mark.parametrize(
    ("setting", "table_level", "expected"),
    [
        ("normal", "", "normal"),
        ("hard", "", "hard"),
        ("hard", "easy", "easy"),
        ("normal", "hard", "hard"),
    ],
)
def test_bots_play_at_the_tables_level_else_at_BOTS_LEVEL(
    make_user, settings, monkeypatch, setting, table_level, expected
):
    settings.BOTS_LEVEL = setting
    game = _table_with_bots(make_user, {0, 1, 2, 3, 4}, bot_level=table_level)
    asked = _levels_asked(monkeypatch)
    assert services.game_bots_act(game_id=game.pk, version=game.version)
    assert asked and set(asked) == {expected}


def test_an_integrators_bot_account_is_never_played_by_the_server(make_user, settings, monkeypatch):
    """A bot account owned by an integrator plays through the API (docs/integrations.md): whatever
    the level, the server does not move for it."""
    from accounts.models import User

    settings.BOTS_LEVEL = "hard"
    seed = 4242
    seat = engine.to_act(engine.new_deal(engine.preset("weihai"), seed=seed, start_seat=0))[0]
    owner, _ = make_user()
    creator, _ = make_user(staff=True)
    table = table_services.table_create(creator=creator, preset="weihai", options={}, setups=[{"seed": seed}])
    for s in range(5):
        if s == seat:
            user = User.objects.create_user(username="integrator-bot", is_bot=True, bot_owner=owner)
        else:
            user, _ = make_user()
        table_services.table_join(table_id=table.pk, user=user, seat=s)
    game = Game.objects.get(table=table, status=GameStatus.RUNNING)
    assert game.bots == [False] * 5
    asked = _levels_asked(monkeypatch)
    assert services.game_bots_act(game_id=game.pk, version=game.version) is False
    assert asked == []
