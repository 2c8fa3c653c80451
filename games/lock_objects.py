"""How rows are locked, in one place.

Order, everywhere: a game row before its table row. A move locks its game and, when the deal ends,
its table; leaving a running table locks the game before the table. Only one game row is locked per
transaction, so no two transactions can wait for each other.
"""

from django.db.models import QuerySet

from config.api.errors import ApiError, ErrorCode
from games.models import Game


def game_lock(*, game_id: int) -> Game:
    """The game row, locked until the transaction ends (`of=self`: the joined table row stays free).

    The deal's setup, its final view and the table's fixed setups are not needed to apply a move
    (a deal's end reads its setup once, then Django loads it): they are left unread rather than
    decoded from JSON on every move."""
    queryset: QuerySet[Game] = (
        Game.objects.select_for_update(of=("self",))
        .select_related("table")
        .defer("setup", "final", "table__setups")
    )
    game = queryset.filter(pk=game_id).first()
    if game is None:
        raise ApiError(ErrorCode.NOT_FOUND, "No such game.")
    return game
