"""The API's only body parser: JSON with a size limit, a nesting limit and no duplicate keys.

Python's json module recurses once per nesting level, so a 6 KB body of 3,000 nested lists raised
RecursionError (a 500) before any view ran; and nothing bounded a body's size. Both are refused here,
before json runs, as `400 invalid_request` (docs/client-guide.md §7: malformed JSON) with the limit in
`extra`.

JSON also admits values that nothing behind the parser can hold, and each was a 500 (issue 26): a
lone surrogate escape (`"\\ud800"`) is a Python string that no UTF-8 encoder takes, so the error that
echoed it could not be rendered; a NUL (`"\\u0000"`) is refused by PostgreSQL in text and jsonb; an
integer past 64 bits fits no database column and no renderer (orjson); `1e400` is an infinity. The
parser refuses them all as malformed JSON, whatever field they are in, so every view sees only
values it can store and echo (docs/security.md "Hostile input").
"""

import codecs
import math
import re

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser
from rest_framework.settings import api_settings
from rest_framework.utils import json

# A JSON string (with its escapes): brackets inside strings do not nest anything.
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_A_BRACKET = re.compile(rb"[^\[\]{}]")
_INNERMOST_PAIR = re.compile(rb"\[\]|\{\}")


# Every integer of the API is a 64-bit signed one (ids are PostgreSQL bigints).
INT64_MAX = 2**63 - 1
# A NUL or a UTF-16 surrogate (only a lone one survives json's decoding: a pair becomes one character).
_UNSTORABLE_CHARACTER = re.compile("[\x00\ud800-\udfff]")


class DuplicateKey(ValueError):
    pass


class UnstorableValue(ValueError):
    pass


def _object_without_duplicate_keys(pairs: list[tuple[str, object]]) -> dict:
    # json keeps the last of two equal keys silently; a client that sent both meant something else.
    found = {}
    for key, value in pairs:
        if key in found:
            raise DuplicateKey(f"duplicate key {key!r}")
        found[key] = value
    return found


def _refuse_unstorable(text: str) -> None:
    found = _UNSTORABLE_CHARACTER.search(text)
    if found is not None:
        # The code point only, never the string: echoing it is what failed.
        raise UnstorableValue(f"a string holds U+{ord(found.group()):04X}, which the API does not accept")


def _refuse_unstorable_strings(value) -> None:
    """Every string of a parsed document, keys included (its depth is bounded: API_MAX_JSON_DEPTH)."""
    if isinstance(value, str):
        _refuse_unstorable(value)
    elif isinstance(value, list):
        for item in value:
            _refuse_unstorable_strings(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            _refuse_unstorable(key)
            _refuse_unstorable_strings(item)


def _int64(text: str) -> int:
    value = int(text)
    if not -INT64_MAX <= value <= INT64_MAX:
        raise UnstorableValue(f"an integer of {len(text)} characters is outside 64 bits")
    return value


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise UnstorableValue(f"the number {text[:40]} is too large")
    return value


class BodyRejected(ParseError):
    """A ParseError whose `extra` names the limit that was exceeded (infra/api/handler.py)."""

    def __init__(self, detail: str, *, extra: dict):
        super().__init__(detail)
        self.extra = extra


def json_nesting_exceeds(raw: bytes, *, limit: int) -> bool:
    """Whether `raw` nests arrays and objects deeper than `limit`.

    Each pass deletes the innermost `[]`/`{}` pairs (in C, by the regex engine), so a document of
    depth d is empty after d passes; at most `limit` passes run whatever the input. Unbalanced
    brackets stop early and are left to json to reject."""
    shape = _NOT_A_BRACKET.sub(b"", _STRING.sub(b"", raw))
    for _ in range(limit):
        if not shape:
            return False
        shape, removed = _INNERMOST_PAIR.subn(b"", shape)
        if not removed:
            return False
    return bool(shape)


class GuardedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        max_bytes = settings.API_MAX_BODY_BYTES
        max_depth = settings.API_MAX_JSON_DEPTH
        raw = stream.read(max_bytes + 1) if stream is not None else b""
        if len(raw) > max_bytes:
            raise BodyRejected(
                f"The request body is larger than {max_bytes} bytes.", extra={"max_bytes": max_bytes}
            )
        if json_nesting_exceeds(raw, limit=max_depth):
            raise BodyRejected(
                f"The JSON nests deeper than {max_depth} levels.", extra={"max_depth": max_depth}
            )
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = codecs.decode(raw, encoding)
            parse_constant = json.strict_constant if api_settings.STRICT_JSON else None
            data = json.loads(
                text,
                parse_constant=parse_constant,
                parse_int=_int64,
                parse_float=_finite,
                object_pairs_hook=_object_without_duplicate_keys,
            )
            _refuse_unstorable_strings(data)
            return data
        except (ValueError, LookupError, RecursionError) as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
