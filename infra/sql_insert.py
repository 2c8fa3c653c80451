"""Appending rows in one hand-written INSERT: the move path's event rows and feed entries.

The ORM's `bulk_create` builds its statement anew on every call; on a move that was a measurable
share of the CPU (docs/scaling.md). The values still go through each field's own `pre_save` and
`get_db_prep_save` (JSON through infra/json_field.py, auto_now_add datetimes, foreign keys), so
what is stored is what the ORM would store. Primary keys are not read back, and no model signals
are sent: callers use this only for models that have none connected.
"""

from functools import lru_cache

from django.db import DEFAULT_DB_ALIAS, connection, connections


@lru_cache(maxsize=64)
def _statement(model, vendor: str, count: int) -> tuple[str, tuple]:
    fields = tuple(f for f in model._meta.concrete_fields if not f.primary_key)
    quote = connection.ops.quote_name
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(f.column) for f in fields)})"
        f" VALUES {', '.join([row] * count)}"
    )
    return sql, fields


def insert_statement(model, rows: list) -> tuple[str, list]:
    """The INSERT of these new, unsaved instances of `model`, and its parameters."""
    # The connection itself, not the django.db.connection proxy (an asgiref Local lookup per read,
    # and each field's preparation reads `connection.ops` per value).
    db = connections[DEFAULT_DB_ALIAS]
    sql, fields = _statement(model, db.vendor, len(rows))
    params = [field.get_db_prep_save(field.pre_save(row, add=True), db) for row in rows for field in fields]
    return sql, params


def rows_insert(model, rows: list) -> None:
    """Insert these new, unsaved instances of `model` (their primary keys stay unset)."""
    if not rows:
        return
    sql, params = insert_statement(model, rows)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
