"""How rows are locked, in one place.

Order, everywhere: a game row before its table row. A move locks its game and, when the deal ends,
its table; leaving a running table locks the game before the table. Only one game row is locked per
transaction, so no two transactions can wait for each other.
"""

from functools import lru_cache

from django.db import connection

from config.api.errors import ApiError, ErrorCode
from games.models import Game, table_model

# Not needed to apply a move (a deal's end reads its setup once, then Django loads it): left unread
# rather than decoded from JSON on every move.
_GAME_UNREAD = frozenset({"setup", "final"})
_TABLE_UNREAD = frozenset({"setups"})



@lru_cache(maxsize=4)
def _lock_statement(vendor: str) -> tuple[str, tuple, tuple]:
    """The SELECT … FOR UPDATE OF the game, with its table joined, and the fields it reads, by model."""
    table = table_model()
    game_fields = tuple(f for f in Game._meta.concrete_fields if f.name not in _GAME_UNREAD)
    table_fields = tuple(f for f in table._meta.concrete_fields if f.name not in _TABLE_UNREAD)
    quote = connection.ops.quote_name
    columns = [f"g.{quote(f.column)}" for f in game_fields] + [f"t.{quote(f.column)}" for f in table_fields]
    sql = (
        f"SELECT {', '.join(columns)} FROM {quote(Game._meta.db_table)} g"
        f" JOIN {quote(table._meta.db_table)} t ON t.id = g.table_id WHERE g.id = %s"
    )
    # `OF g`: the joined table row stays free. (SQLite, one writer at a time, locks nothing here.)
    if connection.features.has_select_for_update_of:
        sql += " FOR UPDATE OF g"
    elif connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    return sql, game_fields, table_fields


def _instance(model, fields: tuple, values) -> object:
    """A model instance from a row, each value through the converters Django's own query applies."""
    converted = []
    for field, value in zip(fields, values, strict=True):
        expression = field.get_col(model._meta.db_table)
        for converter in connection.ops.get_db_converters(expression) + field.get_db_converters(connection):
            value = converter(value, expression, connection)
        converted.append(value)
    return model.from_db(connection.alias, [f.attname for f in fields], converted)


def game_lock(*, game_id: int) -> Game:
    """The game row, locked until the transaction ends, with its table (not locked) attached; the
    deal's setup and final view and the table's fixed setups stay unread (Django loads them on
    first use).

    One hand-written statement: the ORM built the same query anew on every move, a sixth of a
    move's CPU (docs/scaling.md); the rows become models through Django's own converters."""
    sql, game_fields, table_fields = _lock_statement(connection.vendor)
    with connection.cursor() as cursor:
        cursor.execute(sql, [game_id])
        row = cursor.fetchone()
    if row is None:
        raise ApiError(ErrorCode.NOT_FOUND, "No such game.")
    game = _instance(Game, game_fields, row[: len(game_fields)])
    table = _instance(table_model(), table_fields, row[len(game_fields) :])
    Game._meta.get_field("table").set_cached_value(game, table)
    return game
