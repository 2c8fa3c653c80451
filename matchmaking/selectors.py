import statistics
from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, Prefetch, QuerySet
from django.utils import timezone

from accounts import feed
from games import engine
from games import selectors as game_selectors
from games.models import GameStatus
from infra.api.errors import ApiError, ErrorCode
from infra.timestamps import utc_iso
from matchmaking.models import Penalty, Seat, Table, TableEvent, TableStatus, Ticket, TicketStatus
from matchmaking.table_events import user_ref


def table_get(*, table_id: int) -> Table:
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise ApiError(ErrorCode.NOT_FOUND, "No such table.")
    return table


def _is_member(*, table: Table, user: Any, seats: list[Seat]) -> bool:
    return user.pk == table.creator_id or user.is_staff or any(row.user_id == user.pk for row in seats)


def table_detail(*, table: Table, user: Any, was_member: bool = False) -> dict:
    """The table as `user` may see it: a private table only to its creator, its players and staff.

    `was_member`: the user just left, and still gets the answer to his own request.
    """
    seats = list(Seat.objects.filter(table=table).select_related("user"))
    member = was_member or _is_member(table=table, user=user, seats=seats)
    if table.private and not member:
        raise ApiError(ErrorCode.PERMISSION_DENIED, "This table is private.")
    return _table_dict(table=table, seats=seats, member=member)


def _table_dict(*, table: Table, seats: list[Seat], member: bool) -> dict:
    # A waiting table has never dealt (the fifth join starts the first deal and the table plays).
    games = [] if table.status == TableStatus.WAITING else game_selectors.games_of_table(table_id=table.pk)
    current = next((g for g in reversed(games) if g.status == GameStatus.RUNNING), None)
    trustee = current.trustee if current else [False] * 5
    by_seat = {row.seat: row for row in seats}
    return_by = table.return_by if len(table.return_by) == 5 else [None] * 5
    return {
        "id": table.pk,
        "code": table.code if (member or not table.private) else None,
        "preset": table.preset,
        "options": table.options,
        "settings": {
            "play_seconds": table.play_seconds,
            "prompt_seconds": table.prompt_seconds,
            "deal_pause_seconds": table.deal_pause_seconds,
            "return_seconds": table.return_seconds,
        },
        "deals": table.deals,
        "deals_done": table.deals_done,
        "private": table.private,
        "bots_replace_leavers": table.bots_replace_leavers,
        "bot_level": table.bot_level or None,
        "closed_reason": table.closed_reason or None,
        "status": table.status,
        "creator": table.creator_id,
        "seats": [
            {
                "seat": seat,
                "user": user_ref(by_seat[seat].user) if seat in by_seat else None,
                "trustee": bool(trustee[seat]),
                "return_by": return_by[seat],
            }
            for seat in range(5)
        ],
        "scores": list(table.scores),
        "games": [
            {
                "id": g.pk,
                "number": g.number,
                "status": g.status,
                # An aborted deal's final view shows zeros; it has no result (docs/moderation.md).
                "scores": None if g.status == GameStatus.ABORTED else (g.final or {}).get("scores"),
                "unscored": g.unscored,
            }
            for g in games
        ],
        "current_game": current.pk if current else None,
        "next_deal_at": utc_iso(table.next_deal_at),
    }


def tables_lobby(*, status: str, preset: str | None, matched: bool = False) -> QuerySet[Table]:
    """The lobby (docs/matchmaking.md): public tables, newest first. Private tables are never listed.
    The tables the matchmaker filled (full from the start: nobody joins them) are listed apart, with
    `matched`, for players who want to watch a quick match in play."""
    tables = Table.objects.filter(private=False, matched=matched, status=status)
    if preset:
        tables = tables.filter(preset=preset)
    return tables.prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user")))


def tables_lobby_rows(*, tables: list[Table]) -> list[dict]:
    """One page of the lobby; every table in it is public, so everyone sees the same rows."""
    return [_table_dict(table=table, seats=list(table.seats.all()), member=False) for table in tables]


def user_penalties(*, user_id: int, viewer: Any) -> list:
    """A player's penalties, newest first: seen by the player himself and by staff."""
    if not get_user_model().objects.filter(pk=user_id).exists():
        raise ApiError(ErrorCode.NOT_FOUND, "No such user.")
    if viewer.pk != user_id and not viewer.is_staff:
        raise ApiError(ErrorCode.PERMISSION_DENIED, "Only the player and staff see his penalties.")
    return list(Penalty.objects.filter(user_id=user_id).order_by("-created_at", "-id"))


def table_events(*, table: Table, user: Any, after: int) -> dict:
    """The table's public log after `after` (a private table's only to its members; a player who
    played there keeps reading it, so he sees how it ended)."""
    if table.private and not (
        _is_member(table=table, user=user, seats=list(Seat.objects.filter(table=table)))
        or game_selectors.game_user_played_at(table_id=table.pk, user_id=user.pk)
    ):
        raise ApiError(ErrorCode.PERMISSION_DENIED, "This table is private.")
    rows = list(
        TableEvent.objects.filter(table=table, seq__gt=after).order_by("seq").values_list("seq", "data")[:500]
    )
    last_seq = rows[-1][0] if len(rows) == 500 else max(after, table.last_seq, *(seq for seq, _ in rows))
    return {"events": [{**data, "seq": seq} for seq, data in rows], "last_seq": last_seq}


def table_events_changed(*, table_id: int, after: int) -> bool:
    return Table.objects.filter(pk=table_id, last_seq__gt=after).exists()


def ticket_is_settled(*, ticket_id: int) -> bool:
    """For the long-poll: the ticket is no longer waiting (or is gone)."""
    return not Ticket.objects.filter(pk=ticket_id, status=TicketStatus.WAITING).exists()


# How far back `median_wait` looks: recent enough to say what a player queueing now can expect.
STATS_WINDOW = timedelta(hours=1)


def tickets_stats(*, now: datetime | None = None) -> list[dict]:
    """Per preset: tickets waiting now, and the median seconds from queueing to a seat over the
    tickets matched in the last STATS_WINDOW (null when none were)."""
    now = now or timezone.now()
    waiting = dict(
        Ticket.objects.filter(status=TicketStatus.WAITING)
        .values("preset")
        .annotate(count=Count("pk"))
        .values_list("preset", "count")
    )
    waits: dict[str, list[float]] = defaultdict(list)
    matched = Ticket.objects.filter(status=TicketStatus.MATCHED, matched_at__gte=now - STATS_WINDOW)
    for preset, created_at, matched_at in matched.values_list("preset", "created_at", "matched_at"):
        waits[preset].append(max((matched_at - created_at).total_seconds(), 0.0))
    return [
        {
            "preset": preset,
            "waiting": waiting.get(preset, 0),
            "median_wait": round(statistics.median(waits[preset]), 1) if waits[preset] else None,
        }
        for preset in engine.PRESETS
    ]


def _active_seat(*, table: Table, seat: int) -> dict:
    """One seat of `GET me/active` (docs/client-guide.md "Coming back"): the running deal as this
    seat sees it, or null between deals, and what the table waits for."""
    deal = game_selectors.game_seat_summary(table_id=table.pk, seat=seat)
    return_by = table.return_by[seat] if len(table.return_by) == 5 else None
    return {
        "table": table.pk,
        "seat": seat,
        "game": deal["game"] if deal else None,
        # Between deals: a seat still away at the last deal's end is dealt the next one on 托管.
        "trustee": deal["trustee"] if deal else return_by is not None,
        "trustee_locked": deal["trustee_locked"] if deal else False,
        "deal": deal,
        "table_status": table.status,
        "next_deal_at": utc_iso(table.next_deal_at),
        "return_by": return_by,
    }


def user_active(*, user: Any) -> dict:
    """docs/matchmaking.md "Where am I": the user's seats at unfinished tables (newest first, with the running
    deal or null) and his live waiting tickets, so a client that restarts finds its games.

    The feed's newest seq is read first: whatever is appended after it is within reach of a client that
    follows the feed from it, and whatever came before shows in the seats and tickets read below."""
    feed_last_seq = feed.feed_last_seq(user_id=user.pk)
    seats = (
        Seat.objects.filter(user=user, table__status__in=[TableStatus.WAITING, TableStatus.PLAYING])
        .order_by("-table__created_at", "-table_id")
        .select_related("table")
    )
    tables = [_active_seat(table=row.table, seat=row.seat) for row in seats]
    # A stale ticket is as good as expired (tickets.ticket_is_stale); it is not offered as live.
    fresh_since = timezone.now() - timedelta(seconds=settings.MATCHMAKING_TICKET_TTL)
    waiting = Ticket.objects.filter(user=user, status=TicketStatus.WAITING, last_polled_at__gte=fresh_since)
    return {"tables": tables, "tickets": list(waiting), "feed_last_seq": feed_last_seq}
