"""The table's public event log (docs/matchmaking.md "Table events") and its wake-ups.

Appended inside the transaction that changes the table, numbered by the locked table's `last_seq`;
waiters on `GET tables/{id}/events` are woken after commit with the new seq only (no data).
"""

from typing import Any

from infra import commit, wakeups
from matchmaking.models import Table, TableEvent


def user_ref(user: Any) -> dict:
    return {"id": user.pk, "username": user.username, "is_bot": user.is_bot}


def append(*, table: Table, type: str, data: dict) -> TableEvent:
    """`table` must be locked by the caller (matchmaking/lock_objects.py)."""
    table.last_seq += 1
    table.save(update_fields=["last_seq"])
    row = TableEvent.objects.create(table=table, seq=table.last_seq, type=type, data={"type": type, **data})
    table_id, seq = table.pk, table.last_seq
    commit.on_commit(lambda: wakeups.publish_table(table_id=table_id, seq=seq))
    return row
