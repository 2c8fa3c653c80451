"""The statements of a deal's unit of work (games/work.py `GameWork.flush`): one builder per table,
and on PostgreSQL the three in one statement.

- event rows: infra/sql_insert.py `insert_statement` (an INSERT built once per row count);
- the game row: `_game_update_statement` (an UPDATE of the changed fields, built once per set);
- feed entries: accounts/feed.py `feed_append_prepare` (the user cursors' upsert and the entries'
  insert, as WITH items).

On PostgreSQL the inserts go as data-modifying WITH items of the game's UPDATE (they run to completion
whether or not they are read): whatever a move, a timeout or a trustee chain changed is one round
trip, not three. It pays: about 7 % of a move's server CPU against the same builders run one after
the other (docs/scaling.md, "The unit of work's one statement").
The values still go through each field's own `pre_save` and `get_db_prep_save` (JSON through
infra/json_field.py, datetimes, foreign keys), so what is stored is what the ORM would store. No
model signals are sent for these rows: none are connected to games or events (games/models.py keeps
them out of the audit log on purpose).
"""

from functools import lru_cache

from django.db import DEFAULT_DB_ALIAS, connection, connections

from accounts.feed import FeedAppended, feed_append_prepare, feed_appended, feed_write
from games.models import Event, Game
from infra.sql_insert import insert_statement, rows_insert


@lru_cache(maxsize=16)
def _game_update(vendor: str, names: tuple[str, ...]) -> tuple[str, tuple]:
    fields = tuple(Game._meta.get_field(name) for name in names)
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(f.column)} = %s" for f in fields)
    return f"UPDATE {quote(Game._meta.db_table)} SET {assignments} WHERE id = %s", fields


def _game_update_statement(game: Game, names: tuple[str, ...]) -> tuple[str, list]:
    # The connection itself, not django.db.connection: each attribute read through that proxy is a
    # lookup in an asgiref Local, and the fields' preparation reads `connection.ops` per value.
    db = connections[DEFAULT_DB_ALIAS]
    sql, fields = _game_update(db.vendor, names)
    params = [field.get_db_prep_save(field.pre_save(game, add=False), db) for field in fields]
    return sql, [*params, game.pk]


def game_write(
    *, game: Game, rows: list[Event], names: tuple[str, ...], feed: list[tuple[int, str, dict]]
) -> FeedAppended | None:
    """Insert the new event `rows`, save the fields `names` of the locked `game` (it exists), and
    append the `feed` entries; returns the feed's append (published after commit) or None."""
    if not (rows or names or feed):
        return None
    if connections[DEFAULT_DB_ALIAS].vendor != "postgresql":
        rows_insert(Event, rows)
        if names:
            sql, params = _game_update_statement(game, names)
            with connection.cursor() as cursor:
                cursor.execute(sql, params)
        return feed_write(feed) if feed else None
    if not (rows or names):
        return feed_write(feed)
    ctes, params = [], []
    if rows:
        insert_sql, insert_params = insert_statement(Event, rows)
        ctes.append(f"appended AS ({insert_sql})")
        params += insert_params
    prepared = feed_append_prepare(feed) if feed else None
    if prepared is not None:
        ctes.append(prepared.ctes)
        params += prepared.params
    if names:
        main, main_params = _game_update_statement(game, names)
        if prepared is not None:
            main += f" RETURNING {prepared.seqs_sql}"
    else:  # event rows without a field of the game: not made by GameWork (it saves last_seq)
        main, main_params = f"SELECT {prepared.seqs_sql if prepared is not None else 1}", []
    sql = f"WITH {', '.join(ctes)} {main}" if ctes else main
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, *main_params])
        seqs = cursor.fetchone()[0] if prepared is not None else None
    return feed_appended(prepared, seqs) if prepared is not None else None
