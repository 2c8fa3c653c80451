"""Table row locking; see games/lock_objects.py for the order (game before table)."""

from infra.api.errors import ApiError, ErrorCode
from matchmaking.models import Table


def table_lock(*, table_id: int) -> Table:
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None:
        raise ApiError(ErrorCode.NOT_FOUND, "No such table.")
    return table
