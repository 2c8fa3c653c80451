"""Path converters for every id and seat in a URL: `<id:game_id>`, `<seat:seat>`.

Django's `<int:...>` matches any run of digits, and an id past 64 bits reached the queries, the
caches and the renderer (orjson takes no larger integer): `GET tables/9223372036854775808/leave` was a
500 (issue 26). These converters match only what can name a row, so anything else is no URL at all:
`404 not_found`, in the one error shape (infra/api/handler.py `json_404`), before any view runs. The
event server refuses the same ids the same way (events/app.py), and both name the route pattern
alike in logs and metrics (`api/v1/games/<id:game_id>`).
"""

from django.urls import register_converter

# Ids are PostgreSQL bigints (DEFAULT_AUTO_FIELD), numbered from 1.
MAX_ID = 2**63 - 1


def id_in_range(value: int) -> bool:
    return 1 <= value <= MAX_ID


class IdConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if not id_in_range(number):
            raise ValueError("not an id")  # no match: Django tries the next pattern, then 404
        return number

    def to_url(self, value: int) -> str:
        return str(value)


class SeatConverter(IdConverter):
    """A seat number from 0; one that no table has is the view's `404 not_found` (the seat is empty)."""

    def to_python(self, value: str) -> int:
        number = int(value)
        if not 0 <= number <= MAX_ID:
            raise ValueError("not a seat")
        return number


register_converter(IdConverter, "id")
register_converter(SeatConverter, "seat")
