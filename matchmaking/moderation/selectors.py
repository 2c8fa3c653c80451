"""Moderators' reads: the report queue."""

from matchmaking.models import Report


def reports_list(*, status: str | None, before: int | None = None, limit: int = 50) -> list[Report]:
    """Reports newest first, optionally of one status; `before` pages on by id."""
    queryset = Report.objects.order_by("-id")
    if status:
        queryset = queryset.filter(status=status)
    if before is not None:
        queryset = queryset.filter(pk__lt=before)
    return list(queryset[:limit])
