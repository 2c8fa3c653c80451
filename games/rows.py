"""A game row with its table row, in one query of the ORM (a join), optionally locked.

Columns a caller does not need are deferred: Django loads them on first use. The lock covers the
game row alone (`of=("self",)`): the joined table row stays free for the table's own writers.
"""

from django.db.models import QuerySet

from games.models import Game
from infra.api.errors import ApiError, ErrorCode


def _game_query(*, lock: bool, game_unread: frozenset, table_unread: frozenset) -> QuerySet:
    query = Game.objects.select_related("table")
    unread = [*game_unread, *(f"table__{name}" for name in table_unread)]
    if unread:
        query = query.defer(*unread)
    if lock:
        # Backends without row locks (SQLite: one writer at a time) ignore this.
        query = query.select_for_update(of=("self",))
    return query


def game_with_table(*, game_id: int, lock: bool, game_unread=frozenset(), table_unread=frozenset()) -> Game:
    """The game (locked until the transaction ends if `lock`) with its table attached; 404 if none."""
    game = game_with_table_or_none(
        game_id=game_id, lock=lock, game_unread=game_unread, table_unread=table_unread
    )
    if game is None:
        raise ApiError(ErrorCode.NOT_FOUND, "No such game.")
    return game


def game_with_table_or_none(
    *, game_id: int, lock: bool, game_unread=frozenset(), table_unread=frozenset()
) -> Game | None:
    """`game_with_table`, None if there is no such game (a task's case: nothing to do, not an error)."""
    return (
        _game_query(lock=lock, game_unread=frozenset(game_unread), table_unread=frozenset(table_unread))
        .filter(pk=game_id)
        .first()
    )
