"""Table row locking; see games/lock_objects.py for the order (game before table)."""

from infra.api.errors import ApiError, ErrorCode
from matchmaking.models import Table


def table_lock(*, table_id: int) -> Table:
    table = table_lock_for_task(table_id=table_id)
    if table is None:
        raise ApiError(ErrorCode.NOT_FOUND, "No such table.")
    return table


def table_lock_for_task(*, table_id: int) -> Table | None:
    """The locked table, or None when it is gone (a task's case: nothing to do, not an error)."""
    return Table.objects.select_for_update().filter(pk=table_id).first()
