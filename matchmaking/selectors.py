from typing import Any

from django.contrib.auth import get_user_model

from config.api.errors import ApiError, ErrorCode
from games import selectors as game_selectors
from games.models import GameStatus
from matchmaking.models import Penalty, Seat, Table, TableEvent


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
    games = game_selectors.games_of_table(table_id=table.pk)
    current = next((g for g in reversed(games) if g.status == GameStatus.RUNNING), None)
    trustee = current.trustee if current else [False] * 5
    by_seat = {row.seat: row for row in seats}
    return {
        "id": table.pk,
        "code": table.code if (member or not table.private) else None,
        "preset": table.preset,
        "options": table.options,
        "settings": {"play_seconds": table.play_seconds, "prompt_seconds": table.prompt_seconds},
        "deals": table.deals,
        "deals_done": table.deals_done,
        "private": table.private,
        "status": table.status,
        "creator": table.creator_id,
        "seats": [
            {
                "seat": seat,
                "user": {"id": by_seat[seat].user_id, "username": by_seat[seat].user.username}
                if seat in by_seat
                else None,
                "trustee": bool(trustee[seat]),
            }
            for seat in range(5)
        ],
        "scores": list(table.scores),
        "games": [
            {
                "id": g.pk,
                "number": g.number,
                "status": g.status,
                "scores": (g.final or {}).get("scores"),
                "unscored": g.unscored,
            }
            for g in games
        ],
        "current_game": current.pk if current else None,
    }


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
