"""A JSONField that reads and writes its PostgreSQL values with orjson.

A move decodes the deal's 5–6 KB state and encodes it again, and a poll decodes every event row it
returns; Django's JSONField does both with the standard library's json module, several times slower
(docs/scaling.md). The stored JSON is the same (jsonb keeps no formatting); a value orjson refuses
(NaN, an integer beyond 64 bits) goes the standard way, and SQLite, whose JSON is text Django
compares as text, keeps Django's own encoding.
"""

import json

import orjson
from django.db import models
from django.db.models.fields.json import KeyTransform
from django.db.models.query_utils import DeferredAttribute
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
        except TypeError:  # e.g. a dict with int keys, which json turns into strings
            return connection.ops.adapt_json_value(value, None)
        return Jsonb(value, dumps=lambda _: encoded)


class _Undecoded:
    """A column's JSON text as read, decoded on first use (`LazyOrjsonField`)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def decode(self):
        try:
            return orjson.loads(self.text)
        except orjson.JSONDecodeError:
            return json.loads(self.text)  # what orjson refuses (NaN), as Django's JSONField reads it

    def __reduce__(self):
        return (_Undecoded, (self.text,))


class _DecodeOnUse(DeferredAttribute):
    """The field's attribute, decoded the first time it is read. A data descriptor (it has
    `__set__`), so reads come here even when the instance holds the value."""

    def __get__(self, instance, cls=None):
        if instance is None:
            return self
        name = self.field.attname
        value = instance.__dict__[name] if name in instance.__dict__ else super().__get__(instance, cls)
        if isinstance(value, _Undecoded):  # (a deferred field Django just loaded comes here too)
            value = instance.__dict__[name] = value.decode()
        return value

    def __set__(self, instance, value) -> None:
        instance.__dict__[self.field.attname] = value


class LazyOrjsonField(OrjsonField):
    """An OrjsonField that may be decoded when first read rather than when its row is: a reader
    that wants that (games/rows.py) stores `undecoded(text)`; the ORM's own loads and `values()`
    decode as usual. A move locks its game row and most often finds the deal's state already
    decoded in the process (games.selectors.game_state, by id and version), so decoding its
    5–6 KB on every lock was wasted (docs/scaling.md)."""

    descriptor_class = _DecodeOnUse

    def undecoded(self, value, expression, connection):
        """A converter for a hand-written read: the column's JSON text kept for later."""
        if isinstance(value, str) and self.decoder is None:
            return _Undecoded(value)
        return self.from_db_value(value, expression, connection)
