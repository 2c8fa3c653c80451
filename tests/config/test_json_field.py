"""infra/json_field.py: JSON columns read and written with orjson hold and return what Django's
JSONField would."""

import math

import pytest
from django.db import connection

from accounts.models import FeedEvent

pytestmark = pytest.mark.django_db


def _roundtrip(user, seq: int, data):
    FeedEvent.objects.create(user=user, seq=seq, type="t", data=data)
    return FeedEvent.objects.get(user=user, seq=seq).data


def test_values_come_back_as_stored(make_user):
    user, _ = make_user()
    value = {"cards": ["SJ", "10H"], "seat": 3, "nested": {"x": [1.5, None, True]}, "名": "保皇"}
    assert _roundtrip(user, 1, value) == value
    assert _roundtrip(user, 2, [1, 2, 3]) == [1, 2, 3]
    assert _roundtrip(user, 3, "text") == "text"


def test_what_orjson_refuses_goes_the_standard_way(make_user):
    user, _ = make_user()
    # Integer keys: json writes them as strings; orjson refuses, so json does it.
    assert _roundtrip(user, 1, {1: "a"}) == {"1": "a"}
    huge = 2**70  # beyond orjson's 64-bit integers
    assert _roundtrip(user, 2, {"n": huge}) == {"n": huge}
    if connection.vendor != "postgresql":
        assert math.isnan(_roundtrip(user, 3, {"x": float("nan")})["x"])


def test_lookups_into_the_json_still_work(make_user):
    user, _ = make_user()
    FeedEvent.objects.create(user=user, seq=1, type="t", data={"type": "play", "seat": 2, "cards": ["9D"]})
    assert FeedEvent.objects.filter(user=user, data__type="play").count() == 1
    assert list(FeedEvent.objects.filter(user=user).values_list("data__seat", flat=True)) == [2]
    assert list(FeedEvent.objects.filter(user=user).values_list("data__cards", flat=True)) == [["9D"]]
