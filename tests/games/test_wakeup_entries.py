"""games/actions.py: what a committed change's wake-up says it appended (infra/wakeups.py), from
its unit of work (games/work.py). It claims rows only when it knows them all; otherwise the
wake-up is bare and streams read the log."""

import pytest
from django.db import transaction

from games import actions
from games.lock_objects import game_lock
from games.work import GameWork

pytestmark = pytest.mark.django_db


def test_a_change_names_exactly_the_rows_it_appended_or_nothing(make_table):
    setup = make_table()
    with transaction.atomic():
        game = game_lock(game_id=setup["game"])
        work = GameWork(game=game)
        before = game.last_seq
        rows = actions.event_rows(game=game, events=[{"type": "trustee", "seat": 1, "on": True}])
        work.events_append(rows)
        assert actions._appended_entries(work) == (
            before,
            ({"type": "trustee", "seat": 1, "on": True, "seq": before + 1},),
        )
        # Taken once; a change with no rows through GameWork.events_append claims nothing.
        assert actions._appended_entries(work) is None
        # Rows appended, then another numbered but written some other way: not trusted whole.
        work.events_append(actions.event_rows(game=game, events=[{"type": "x"}]))
        actions.event_rows(game=game, events=[{"type": "y"}])
        assert actions._appended_entries(work) is None
        transaction.set_rollback(True)
