"""Moments in answers, events, feeds and webhooks: ISO 8601 in UTC with a `Z`, as DRF's DateTimeField
writes them (docs/client-guide.md), so a deadline reads the same wherever a client meets it."""

from datetime import datetime


def utc_iso(moment: datetime | None) -> str | None:
    """`2026-11-30T03:00:20.123456Z` for an aware UTC moment; None for None."""
    return moment.isoformat().replace("+00:00", "Z") if moment is not None else None
