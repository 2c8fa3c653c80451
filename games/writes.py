"""The move path's writes, as hand-written statements: append event rows, update the game row, and
append the `your_turn` entries the move announces (on PostgreSQL, all in one statement).

Every action of every actor (player, timer, trustee, bot) makes exactly these writes: each statement
is built once per shape and reused, and on PostgreSQL the three go in one round trip. The values
still go through each field's own `pre_save` and `get_db_prep_save` (JSON through
infra/json_field.py, datetimes, foreign keys), so what is stored is what the ORM would store. No
model signals are sent for these rows: none are connected to games or events (games/models.py keeps
them out of the audit log on purpose).
"""

from functools import lru_cache

from django.db import DEFAULT_DB_ALIAS, connection, connections

from accounts.feed import feed_append_many, feed_append_prepare, feed_appended
from games.models import Event, Game
from games.work import DeferredWrites, GameWork
from infra.sql_insert import insert_statement, rows_insert


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
        with connection.cursor() as cursor:
            cursor.execute(f"WITH appended AS ({insert_sql}) {update_sql}", [*insert_params, *update_params])
        return
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH appended AS ({insert_sql}), {prepared.ctes} {update_sql} RETURNING {prepared.seqs_sql}",
            [*insert_params, *prepared.params, *update_params],
        )
        seqs = cursor.fetchone()[0]
    feed_appended(prepared, seqs)


class deferred:
    """Inside `with deferred(work):`, event rows appended without an update of the game
    (`events_insert_or_defer`) and game fields saved (`game_fields_save`) wait, and go with the next
    combined write (`take_deferred`) or, on leaving the block without an error, in one statement.

    A timeout puts each seat on trustee, clears and re-arms the timer, then writes the trustee's
    action (and the feed entries the transaction collected in `work.feed`): one statement instead
    of five on the way to its wake-up (the re-armed timer goes with it
    too: games.actions.trustee_autoplay). An error leaves the writes unmade: the transaction is
    rolled back anyway."""

    def __init__(self, work: GameWork) -> None:
        self.work = work

    def __enter__(self) -> None:
        if self.work.deferred is not None:
            raise RuntimeError("writes of this game are already deferred")
        self.work.deferred = DeferredWrites()

    def __exit__(self, exc_type, exc, tb) -> None:
        pending, self.work.deferred = self.work.deferred, None
        feed, self.work.feed = self.work.feed, []
        if exc_type is not None:
            return
        if pending.rows or pending.fields:
            names = tuple(sorted(pending.fields or {"last_seq"}))
            events_insert_and_game_update(pending.rows, self.work.game, names, feed)
        else:
            feed_append_many(feed)


def deferring(work: GameWork) -> bool:
    """Writes of the work's game are being deferred (inside `deferred(work)`)."""
    return work.deferred is not None


def game_fields_save(work: GameWork, names: tuple[str, ...]) -> None:
    """Save these fields of the locked game now, or with its deferred writes."""
    if work.deferred is None:
        game_update(work.game, names)
    else:
        work.deferred.fields.update(names)


def events_insert_or_defer(work: GameWork, rows: list[Event]) -> None:
    """Insert these new event rows of the game now, or with its deferred writes."""
    if work.deferred is None:
        events_insert(rows)
    else:
        work.deferred.rows.extend(rows)


def take_deferred(work: GameWork, rows: list[Event], names: tuple[str, ...]) -> tuple[list[Event], tuple]:
    """A combined write of `rows` and `names` about to run: the deferred rows (which come first in
    the log) and fields go with it."""
    pending = work.deferred
    if pending is None or not (pending.rows or pending.fields):
        return rows, names
    rows, names = [*pending.rows, *rows], tuple(sorted({*pending.fields, *names}))
    pending.rows, pending.fields = [], set()
    return rows, names
