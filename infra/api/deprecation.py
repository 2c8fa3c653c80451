"""A deprecated operation says so in the schema and in every answer (docs/changelog.md "Versions and
deprecation"): `deprecated: true` in the schema, and the headers `Deprecation` (RFC 9745: the date of
the notice, as `@<unix seconds>`) and `Sunset` (RFC 8594: the date after which it may be gone, an
HTTP-date), which a client can log or show long before anything breaks. The sunset is the notice plus
API_SUPPORT_WINDOW_MONTHS, unless the decorator names a later one.
"""

import functools
from datetime import UTC, date, datetime

from dateutil.relativedelta import relativedelta
from django.conf import settings
from django.utils.http import http_date
from drf_spectacular.utils import extend_schema

DEPRECATION_HEADER = "Deprecation"
SUNSET_HEADER = "Sunset"


def _timestamp(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())


def sunset_of(since: date, sunset: date | None = None) -> date:
    earliest = since + relativedelta(months=settings.API_SUPPORT_WINDOW_MONTHS)
    return max(earliest, sunset) if sunset else earliest


def deprecation_headers(*, since: date, sunset: date | None = None) -> dict[str, str]:
    return {
        DEPRECATION_HEADER: f"@{_timestamp(since)}",
        SUNSET_HEADER: http_date(_timestamp(sunset_of(since, sunset))),
    }


def deprecated(*, since: date, sunset: date | None = None):
    """Mark a view method (an APIView's `get`, `post`, ...) deprecated since `since`: answers, errors
    included, carry the two headers; the schema marks the operation."""

    def decorate(method):
        @functools.wraps(method)
        def wrapper(view, request, *args, **kwargs):
            try:
                response = method(view, request, *args, **kwargs)
            except Exception as exc:
                response = view.handle_exception(exc)
            for name, value in deprecation_headers(since=since, sunset=sunset).items():
                response[name] = value
            return response

        return extend_schema(deprecated=True)(wrapper)

    return decorate
