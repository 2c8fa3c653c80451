"""Cursor pages for every list a client walks (the lobby, a player's games).

A cursor names a position in a fixed ordering, so a page stays right while new rows arrive ahead of
it (an offset would drift). The answer carries the bare cursor as `next`, not DRF's full URL: clients
pass it back as `?cursor=`.

A cursor is the client's to forge: DRF decodes its position (`p=`) as text and hands it to the
queryset's filter as it is, so `p=abc` on a list ordered by date or id was a 500 (issue 26). The
position is checked against the ordering's field first; a position that field cannot hold is a bad
cursor, `400 invalid_request`, like one that does not decode.
"""

from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

from django.core.exceptions import ValidationError
from rest_framework.exceptions import NotFound
from rest_framework.pagination import CursorPagination

from infra.api.converters import MAX_ID
from infra.api.errors import ApiError, ErrorCode


def _position_valid(field, position: str) -> bool:
    """Whether `field` (a model field) holds the cursor position `position` in every database."""
    try:
        value = field.to_python(position)
        if isinstance(value, datetime):
            # DRF writes an aware datetime; a naive one or one whose UTC time leaves the calendar
            # (year 1 at +01:00) would fail in the database adapter instead.
            return value.tzinfo is not None and value.astimezone(UTC) is not None
    except (ValidationError, ValueError, OverflowError):
        return False
    if isinstance(value, int):
        return -MAX_ID <= value <= MAX_ID
    return value is not None


class _CheckedCursorPagination(CursorPagination):
    def __init__(self, *, ordering: tuple[str, ...], page_size: int, position_field):
        self.ordering = ordering
        self.page_size = page_size
        self.position_field = position_field  # the model field of the first ordering key

    def decode_cursor(self, request):
        cursor = super().decode_cursor(request)
        if cursor is not None and cursor.position is not None:
            if not _position_valid(self.position_field, cursor.position):
                raise NotFound(self.invalid_cursor_message)
        return cursor


def cursor_page(
    queryset, request, *, ordering: tuple[str, ...], page_size: int = 20
) -> tuple[list, str | None]:
    """One page of `queryset` in `ordering` from the request's `cursor`, and the next cursor
    (None: this is the last page)."""
    paginator = _CheckedCursorPagination(
        ordering=ordering,
        page_size=page_size,
        position_field=queryset.model._meta.get_field(ordering[0].lstrip("-")),
    )
    try:
        page = paginator.paginate_queryset(queryset, request)
    except NotFound as exc:
        raise ApiError(
            ErrorCode.INVALID_REQUEST, "Invalid cursor.", extra={"fields": {"cursor": ["Invalid."]}}
        ) from exc
    next_link = paginator.get_next_link()
    next_cursor = parse_qs(urlsplit(next_link).query).get("cursor", [None])[0] if next_link else None
    return page, next_cursor
