"""infra/api/renderers.py: orjson renders what DRF's JSONRenderer rendered, value for value."""

import datetime
import decimal
import json
import uuid

from django.utils.translation import gettext_lazy
from rest_framework.renderers import JSONRenderer

from infra.api.renderers import ORJSONRenderer

SAMPLE = {
    "id": 7,
    "name": "李华 ünï",
    "when": datetime.datetime(2026, 12, 1, 3, 0, 20, 123000, tzinfo=datetime.UTC),
    "day": datetime.date(2026, 12, 1),
    "amount": decimal.Decimal("1.50"),
    "uuid": uuid.UUID("12345678-1234-5678-1234-567812345678"),
    "lazy": gettext_lazy("This field is required."),
    "nested": [{"cards": ["BJ*", "2S"], "n": None, "ok": True, "x": 0.25}],
    "tuple": (1, 2),
}


def test_the_same_json_as_drf():
    ours = ORJSONRenderer().render(SAMPLE)
    theirs = JSONRenderer().render(SAMPLE)
    assert json.loads(ours) == json.loads(theirs)
    assert b'"when":"2026-12-01T03:00:20.123000Z"' in ours  # DRF's datetime form, not orjson's
    assert "李华".encode() in ours and b'", "' not in ours  # UTF-8 as is, compact


def test_nothing_renders_as_empty_and_indent_still_works():
    assert ORJSONRenderer().render(None) == b""
    pretty = ORJSONRenderer().render({"a": [1]}, "application/json; indent=2", {})
    assert pretty == JSONRenderer().render({"a": [1]}, "application/json; indent=2", {})
