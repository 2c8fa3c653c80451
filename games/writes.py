"""The move path's two writes, as hand-written statements: append event rows, update the game row.

Every action of every actor (player, timer, trustee, bot) makes exactly these writes, and the ORM
built both statements anew each time: with the lock's SELECT, most of a move's CPU outside the engine
(docs/scaling.md). The values still go through each field's own `pre_save` and `get_db_prep_save`
(JSON through config/json_field.py, datetimes, foreign keys), so what is stored is what the ORM would
store. No model signals are sent for these rows: none are connected to games or events (games/models
.py keeps them out of the audit log on purpose).
"""

from functools import lru_cache

from django.db import connection

from config.sql_insert import rows_insert
from games.models import Event, Game


def events_insert(rows: list[Event]) -> None:
    """Insert these new event rows (their primary keys are not read back)."""
    rows_insert(Event, rows)


@lru_cache(maxsize=16)
def _game_update(vendor: str, names: tuple[str, ...]) -> tuple[str, tuple]:
    fields = tuple(Game._meta.get_field(name) for name in names)
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(f.column)} = %s" for f in fields)
    return f"UPDATE {quote(Game._meta.db_table)} SET {assignments} WHERE id = %s", fields


def game_update(game: Game, names: tuple[str, ...]) -> None:
    """`game.save(update_fields=names)` for a row that exists (it is locked by the caller)."""
    sql, fields = _game_update(connection.vendor, names)
    params = [field.get_db_prep_save(field.pre_save(game, add=False), connection) for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, game.pk])
