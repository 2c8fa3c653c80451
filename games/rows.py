"""A game row with its table row, read in one hand-written statement and turned into models.

The ORM built the same join anew for every move (locked) and every view (not locked), a sixth of a
move's CPU (docs/scaling.md). Here each statement is built once per shape, and each column goes
through the converters Django's own query would apply (looked up once, not per row), so the models
are what `select_related("table")` would have given. Columns left out are deferred fields: Django
loads them on first use.
"""

from dataclasses import dataclass
from functools import lru_cache

from django.db import DEFAULT_DB_ALIAS, connection, connections

from config.api.errors import ApiError, ErrorCode
from config.json_field import LazyOrjsonField
from config.sql_cursor import bound_cursor
from games.models import Game, table_model


@dataclass(frozen=True)
class _Shape:
    sql: str
    game_fields: tuple
    table_fields: tuple
    converters: tuple  # per column: the (converter, expression) pairs to apply, in order


@lru_cache(maxsize=16)
def _shape(vendor: str, lock: bool, game_unread: frozenset, table_unread: frozenset) -> _Shape:
    table = table_model()
    game_fields = tuple(f for f in Game._meta.concrete_fields if f.name not in game_unread)
    table_fields = tuple(f for f in table._meta.concrete_fields if f.name not in table_unread)
    quote = connection.ops.quote_name
    columns = [f"g.{quote(f.column)}" for f in game_fields] + [f"t.{quote(f.column)}" for f in table_fields]
    sql = (
        f"SELECT {', '.join(columns)} FROM {quote(Game._meta.db_table)} g"
        f" JOIN {quote(table._meta.db_table)} t ON t.id = g.table_id WHERE g.id = %s"
    )
    if lock:
        # `OF g`: the joined table row stays free. (SQLite, one writer at a time, locks nothing here.)
        if connection.features.has_select_for_update_of:
            sql += " FOR UPDATE OF g"
        elif connection.features.has_select_for_update:
            sql += " FOR UPDATE"
    converters = []
    for model, fields in ((Game, game_fields), (table, table_fields)):
        for field in fields:
            expression = field.get_col(model._meta.db_table)
            found = connection.ops.get_db_converters(expression) + field.get_db_converters(connection)
            if isinstance(field, LazyOrjsonField):
                # The deal's state: decoded on first use, which a move with the state cached in
                # the process never makes (config/json_field.py).
                found = [converter for converter in found if converter != field.from_db_value]
                found.append(field.undecoded)
            converters.append(tuple((converter, expression) for converter in found))
    return _Shape(sql, game_fields, table_fields, tuple(converters))


def game_with_table(*, game_id: int, lock: bool, game_unread=frozenset(), table_unread=frozenset()) -> Game:
    """The game (locked until the transaction ends if `lock`) with its table attached; 404 if none."""
    db = connections[DEFAULT_DB_ALIAS]  # not the django.db.connection proxy: a Local lookup per read
    shape = _shape(db.vendor, lock, frozenset(game_unread), frozenset(table_unread))
    with bound_cursor() as cursor:
        cursor.execute(shape.sql, [game_id])
        row = cursor.fetchone()
    if row is None:
        raise ApiError(ErrorCode.NOT_FOUND, "No such game.")
    values = []
    for value, converters in zip(row, shape.converters, strict=True):
        for converter, expression in converters:
            value = converter(value, expression, db)
        values.append(value)
    split = len(shape.game_fields)
    game = Game.from_db(db.alias, [f.attname for f in shape.game_fields], values[:split])
    table = table_model().from_db(db.alias, [f.attname for f in shape.table_fields], values[split:])
    Game._meta.get_field("table").set_cached_value(game, table)
    return game
