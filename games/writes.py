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

from django.db import DEFAULT_DB_ALIAS, connection, connections

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
    # The connection itself, not django.db.connection: each attribute read through that proxy is a
    # lookup in an asgiref Local, and the fields' preparation reads `connection.ops` per value.
    db = connections[DEFAULT_DB_ALIAS]
    sql, fields = _game_update(db.vendor, names)
    params = [field.get_db_prep_save(field.pre_save(game, add=False), db) for field in fields]
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


class _Deferred:
    __slots__ = ("rows", "fields")

    def __init__(self) -> None:
        self.rows: list[Event] = []
        self.fields: set[str] = set()


_DEFERRED = "_deferred_writes"


class deferred:
    """Inside `with deferred(game):`, event rows appended without an update of the game
    (`events_append_or_defer`) and game fields saved (`game_fields_save`) wait, and go with the next
    combined write (`take_deferred`) or, on leaving the block without an error, in one statement.

    A timeout put each seat on trustee with an insert and an update, cleared and re-armed the timer
    with two more, then wrote the trustee's action: five statements on the way to its wake-up, now
    one (the re-armed timer goes with it too: games.actions.trustee_autoplay). An error leaves the
    writes unmade: the transaction is rolled back anyway."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def __enter__(self) -> None:
        if _DEFERRED in self.game.__dict__:
            raise RuntimeError("writes of this game are already deferred")
        self.game.__dict__[_DEFERRED] = _Deferred()

    def __exit__(self, exc_type, exc, tb) -> None:
        pending = self.game.__dict__.pop(_DEFERRED)
        if exc_type is None and (pending.rows or pending.fields):
            events_insert_and_game_update(pending.rows, self.game, tuple(sorted(pending.fields)))


def _pending(game: Game) -> _Deferred | None:
    return game.__dict__.get(_DEFERRED)


def deferring(game: Game) -> bool:
    """Writes of `game` are being deferred (inside `deferred(game)`)."""
    return _DEFERRED in game.__dict__


def game_fields_save(game: Game, names: tuple[str, ...]) -> None:
    """Save these fields of the locked `game` now, or with its deferred writes."""
    pending = _pending(game)
    if pending is None:
        game_update(game, names)
    else:
        pending.fields.update(names)


def events_insert_or_defer(game: Game, rows: list[Event]) -> None:
    """Insert these new event rows of `game` now, or with its deferred writes."""
    pending = _pending(game)
    if pending is None:
        events_insert(rows)
    else:
        pending.rows.extend(rows)


def take_deferred(game: Game, rows: list[Event], names: tuple[str, ...]) -> tuple[list[Event], tuple]:
    """A combined write of `rows` and `names` about to run: the deferred rows (which come first in
    the log) and fields go with it."""
    pending = _pending(game)
    if pending is None or not (pending.rows or pending.fields):
        return rows, names
    rows, names = [*pending.rows, *rows], tuple(sorted({*pending.fields, *names}))
    pending.rows, pending.fields = [], set()
    return rows, names
