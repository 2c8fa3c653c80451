"""How rows are locked, in one place.

Order, everywhere: a game row before its table row. A move locks its game and, when the deal ends,
its table; leaving a running table locks the game before the table. Only one game row is locked per
transaction, so no two transactions can wait for each other.
"""

from games import rows
from games.models import Game, GameStatus

# Not needed to apply a move (a deal's end reads what it needs once, then Django loads it): left
# unread rather than decoded from JSON or parsed from timestamps on every move.
_GAME_UNREAD = frozenset({"setup", "final", "created_at", "finished_at"})
_TABLE_UNREAD = frozenset({"setups", "code", "options", "scores", "created_at"})


def game_lock(*, game_id: int) -> Game:
    """The game row, locked until the transaction ends, with its table (not locked) attached; the
    deal's setup and final view and the table's fixed setups stay unread (Django loads them on
    first use). One query (games/rows.py)."""
    return rows.game_with_table(
        game_id=game_id, lock=True, game_unread=_GAME_UNREAD, table_unread=_TABLE_UNREAD
    )


def game_lock_for_task(*, game_id: int, version: int | None = None, running: bool = True) -> Game | None:
    """A task's prelude (timers, bots, 托管 continuations): the locked game, or None when the task
    has nothing to do — the game is gone, or (`running`) its deal is over, or (`version`) it has
    moved on since the task was sent. A task never trusts its own arrival (docs/architecture.md)."""
    game = rows.game_with_table_or_none(
        game_id=game_id, lock=True, game_unread=_GAME_UNREAD, table_unread=_TABLE_UNREAD
    )
    if game is None or (running and game.status != GameStatus.RUNNING):
        return None
    if version is not None and game.version != version:
        return None
    return game
