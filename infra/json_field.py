"""A JSONField that reads and writes its PostgreSQL values with orjson.

A move decodes the deal's 5–6 KB state and encodes it again, and a poll decodes every event row it
returns; Django's JSONField does both with the standard library's json module, several times slower
(docs/scaling.md). The stored JSON is the same (jsonb keeps no formatting); a value orjson refuses
(NaN, an integer beyond 64 bits) goes the standard way, and SQLite, whose JSON is text Django
compares as text, keeps Django's own encoding.
"""


import orjson
from django.db import models
from django.db.models.fields.json import KeyTransform
from psycopg.types.json import Jsonb


class OrjsonField(models.JSONField):
    def from_db_value(self, value, expression, connection):
        if isinstance(value, str) and self.decoder is None and not isinstance(expression, KeyTransform):
            try:
                return orjson.loads(value)
            except orjson.JSONDecodeError:
                pass  # what orjson refuses, json may read (NaN); or Django's own fallback applies
        return super().from_db_value(value, expression, connection)

    def get_db_prep_value(self, value, connection, prepared=False):
        if connection.vendor != "postgresql" or self.encoder is not None:
            return super().get_db_prep_value(value, connection, prepared)
        if not prepared:
            value = self.get_prep_value(value)
        try:
            encoded = orjson.dumps(value)
        except TypeError:  # e.g. a dict with int keys, which json turns into strings: Django's own way
            return super().get_db_prep_value(value, connection, prepared=True)
        return Jsonb(value, dumps=lambda _: encoded)


class LazyOrjsonField(OrjsonField):
    """The deal's state column (games/models.py). Once decoded on first use by a hand-written
    read; it reads as an OrjsonField now, under the name its migration gave it."""


def json_column(value):
    """A JSON column read by a raw query: Django reads jsonb (and SQLite's JSON text) as text and
    decodes it in the field, which a raw cursor skips; so the caller decodes here."""
    return orjson.loads(value) if isinstance(value, str | bytes) else value
