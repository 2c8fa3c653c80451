"""The move path's writes, as hand-written statements: append event rows, update the game row, and
append the `your_turn` entries the move announces (on PostgreSQL, all in one statement).

Every action of every actor (player, timer, trustee, bot) makes exactly these writes, and the ORM
built both statements anew each time: with the lock's SELECT, most of a move's CPU outside the engine
(docs/scaling.md). The values still go through each field's own `pre_save` and `get_db_prep_save`
(JSON through config/json_field.py, datetimes, foreign keys), so what is stored is what the ORM would
store. No model signals are sent for these rows: none are connected to games or events (games/models
.py keeps them out of the audit log on purpose).
"""

from functools import lru_cache

from django.db import connection

from accounts.feed import feed_append_many, feed_append_prepare, feed_appended
from config.sql_cursor import bound_cursor
from config.sql_insert import insert_statement, rows_insert
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


def _game_update_statement(game: Game, names: tuple[str, ...]) -> tuple[str, list]:
    sql, fields = _game_update(connection.vendor, names)
    params = [field.get_db_prep_save(field.pre_save(game, add=False), connection) for field in fields]
    return sql, [*params, game.pk]


def game_update(game: Game, names: tuple[str, ...]) -> None:
    """`game.save(update_fields=names)` for a row that exists (it is locked by the caller)."""
    sql, params = _game_update_statement(game, names)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def events_insert_and_game_update(
    rows: list[Event], game: Game, names: tuple[str, ...], feed: list[tuple[int, str, dict]] = ()
) -> None:
    """`events_insert(rows)`, `game_update(game, names)` and `feed_append_many(feed)`, in one
    statement on PostgreSQL (the inserts as data-modifying WITH items, which run to completion
    whether or not they are read): two round trips and two statements fewer on every move."""
    prepared = feed_append_prepare(list(feed)) if feed else None
    if connection.vendor != "postgresql" or not rows:
        events_insert(rows)
        game_update(game, names)
        feed_append_many(list(feed))
        return
    insert_sql, insert_params = insert_statement(Event, rows)
    update_sql, update_params = _game_update_statement(game, names)
    if prepared is None:
        with bound_cursor() as cursor:
            cursor.execute(f"WITH appended AS ({insert_sql}) {update_sql}", [*insert_params, *update_params])
        return
    with bound_cursor() as cursor:
        cursor.execute(
            f"WITH appended AS ({insert_sql}), {prepared.ctes} {update_sql} RETURNING {prepared.seqs_sql}",
            [*insert_params, *prepared.params, *update_params],
        )
        seqs = cursor.fetchone()[0]
    feed_appended(prepared, seqs)
