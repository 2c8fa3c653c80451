"""Cursor pages for every list a client walks (the lobby, a player's games).

A cursor names a position in a fixed ordering, so a page stays right while new rows arrive ahead of
it (an offset would drift). The answer carries the bare cursor as `next`, not DRF's full URL: clients
pass it back as `?cursor=`.
"""

from urllib.parse import parse_qs, urlsplit

from rest_framework.exceptions import NotFound
from rest_framework.pagination import CursorPagination

from infra.api.errors import ApiError, ErrorCode


def cursor_page(
    queryset, request, *, ordering: tuple[str, ...], page_size: int = 20
) -> tuple[list, str | None]:
    """One page of `queryset` in `ordering` from the request's `cursor`, and the next cursor
    (None: this is the last page)."""
    paginator = CursorPagination()
    paginator.ordering = ordering
    paginator.page_size = page_size
    try:
        page = paginator.paginate_queryset(queryset, request)
    except NotFound as exc:
        raise ApiError(
            ErrorCode.INVALID_REQUEST, "Invalid cursor.", extra={"fields": {"cursor": ["Invalid."]}}
        ) from exc
    next_link = paginator.get_next_link()
    next_cursor = parse_qs(urlsplit(next_link).query).get("cursor", [None])[0] if next_link else None
    return page, next_cursor
