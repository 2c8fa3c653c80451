"""games/lock_objects.py: the lock query gives the models a plain ORM read would, and locks only the game."""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games.lock_objects import _GAME_UNREAD, _TABLE_UNREAD, game_lock
from games.models import Game
from infra.api.errors import ApiError

pytestmark = pytest.mark.django_db


def _fields(instance, names):
    return {name: getattr(instance, name) for name in names}


def test_the_locked_game_and_its_table_are_what_the_orm_loads(make_table):
    setup = make_table()
    expected = Game.objects.select_related("table").get(pk=setup["game"])
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        game = game_lock(game_id=setup["game"])
        game_names = [f.attname for f in Game._meta.concrete_fields if f.name not in _GAME_UNREAD]
        table_fields = type(expected.table)._meta.concrete_fields
        table_names = [f.attname for f in table_fields if f.name not in _TABLE_UNREAD]
        assert _fields(game, game_names) == _fields(expected, game_names)
        assert _fields(game.table, table_names) == _fields(expected.table, table_names)
        assert len(queries) == 1  # the table came with it
        if connection.features.has_select_for_update_of:
            # The table row is read, not locked (games/lock_objects.py: a game before its table).
            assert queries[0]["sql"].endswith('FOR UPDATE OF "games_game"')
        # What was left unread loads on first use.
        for name in _GAME_UNREAD:
            assert getattr(game, name) == getattr(expected, name), name
        for name in _TABLE_UNREAD:
            assert getattr(game.table, name) == getattr(expected.table, name), name
    assert game.deadline.tzinfo is not None and isinstance(game.state, dict)


def test_saving_a_locked_game_writes_what_changed(make_table):
    setup = make_table()
    with transaction.atomic():
        game = game_lock(game_id=setup["game"])
        game.last_seq += 1
        game.save(update_fields=["last_seq"])
    assert Game.objects.get(pk=setup["game"]).last_seq == game.last_seq


def test_no_such_game_is_404():
    with pytest.raises(ApiError) as raised:
        game_lock(game_id=10**9)
    assert raised.value.code == "not_found"
