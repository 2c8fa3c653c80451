"""A user's feed (CONTRACT §5 "Your feed"): one ordered log per user of what is addressed to him
(`ticket_matched`, `deal_started`, `your_turn`, `sanction`), followed by one long-poll or SSE stream.

Appended inside the transaction of the change that causes it (an outbox row, ARCHITECTURE.md), so a
client never learns of a change that was rolled back and never misses one that committed. Numbering
takes the row lock of the user's FeedCursor: callers lock their own rows (game, table) first, and this
one last, so feed appends never deadlock with each other. After commit, each user's wake-up carries
his new entry (config/wakeups.py).
"""

import functools

import orjson
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import FeedCursor, FeedEvent
from config import wakeups
from config.sql_insert import rows_insert

# Entries older than this many per user are pruned as new ones arrive: the feed is for following
# what happens now; history has its own endpoints.
FEED_KEEP = 500


def feed_append(*, user_id: int, type: str, data: dict) -> int:
    """Append one entry to `user_id`'s feed; returns its seq."""
    return feed_append_many([(user_id, type, data)])[0]


def feed_append_many(entries: list[tuple[int, str, dict]]) -> list[int]:
    """Append `(user_id, type, data)` entries (at most one per user); returns their seqs, in order.

    One statement on PostgreSQL whatever the count (two elsewhere): an upsert numbers every user's
    entry (rows locked in user id order, so two appends to overlapping users cannot deadlock), an
    insert writes the entries.
    """
    if not entries:
        return []
    user_ids = sorted({user_id for user_id, _, _ in entries})
    if len(user_ids) != len(entries):
        raise ValueError("one feed entry per user per call")
    by_user = {user_id: (type, {"type": type, **data}) for user_id, type, data in entries}
    if connection.vendor == "postgresql":
        seqs = _number_and_insert(user_ids, by_user)
    else:
        seqs = _number(user_ids)
        rows_insert(
            FeedEvent,
            [FeedEvent(user_id=u, seq=seqs[u], type=by_user[u][0], data=by_user[u][1]) for u in user_ids],
        )
    for user_id, _, _ in entries:
        seq = seqs[user_id]
        if seq > FEED_KEEP and seq % 50 == 0:
            FeedEvent.objects.filter(user_id=user_id, seq__lte=seq - FEED_KEEP).delete()
    # Each wake-up carries its entry, as `feed_read` gives it: an open stream forwards it unread.
    pushed = [(u, seqs[u], {**by_user[u][1], "seq": seqs[u]}) for u in user_ids]
    transaction.on_commit(
        lambda: [wakeups.publish_user(user_id=u, seq=q, entry=entry) for u, q, entry in pushed]
    )
    return [seqs[user_id] for user_id, _, _ in entries]


def _number(user_ids: list[int]) -> dict[int, int]:
    """Take the next seq of each user's feed (rows locked in user id order, so two appends to
    overlapping users cannot deadlock)."""
    cursor_table = connection.ops.quote_name(FeedCursor._meta.db_table)
    placeholders = ", ".join(["(%s, 1)"] * len(user_ids))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {cursor_table} (user_id, last_seq) VALUES {placeholders} "
            f"ON CONFLICT (user_id) DO UPDATE SET last_seq = {cursor_table}.last_seq + 1 "
            "RETURNING user_id, last_seq",
            user_ids,
        )
        return dict(cursor.fetchall())


def _number_and_insert(user_ids: list[int], by_user: dict[int, tuple[str, dict]]) -> dict[int, int]:
    """`_number` and the entries' insert in one PostgreSQL statement (the numbering as a
    data-modifying WITH whose seqs the insert reads): a move announces its prompts here, and
    this is one round trip fewer on each."""
    data_field = FeedEvent._meta.get_field("data")
    params: list = list(user_ids)
    for user_id in user_ids:
        type, data = by_user[user_id]
        params += [user_id, type, data_field.get_db_prep_save(data, connection)]
    params.append(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(_number_and_insert_sql(len(user_ids)), params)
        return dict(cursor.fetchall())


@functools.lru_cache(maxsize=8)
def _number_and_insert_sql(count: int) -> str:
    quote = connection.ops.quote_name
    cursors, events = quote(FeedCursor._meta.db_table), quote(FeedEvent._meta.db_table)
    columns = {f.name: quote(f.column) for f in FeedEvent._meta.concrete_fields if not f.primary_key}
    # Every column is written below; a field added to FeedEvent must be added here too.
    assert set(columns) == {"user", "seq", "type", "data", "created_at"}, columns
    numbering = ", ".join(["(%s, 1)"] * count)
    values = ", ".join(["(%s::bigint, %s::varchar, %s::jsonb)"] * count)
    return (
        f"WITH numbered AS (INSERT INTO {cursors} (user_id, last_seq) VALUES {numbering} "
        f"ON CONFLICT (user_id) DO UPDATE SET last_seq = {cursors}.last_seq + 1 "
        "RETURNING user_id, last_seq), "
        f"entries (user_id, type, data) AS (VALUES {values}) "
        f"INSERT INTO {events} ({columns['user']}, {columns['seq']}, {columns['type']}, {columns['data']}, "
        f"{columns['created_at']}) "
        "SELECT e.user_id, n.last_seq, e.type, e.data, %s "
        "FROM entries e JOIN numbered n ON n.user_id = e.user_id "
        f"RETURNING {columns['user']}, {columns['seq']}"
    )


def feed_read(*, user_id: int, after: int, limit: int = 200) -> dict:
    """Entries after `after`, oldest first; `last_seq` is what to pass as `after` next time.

    One hand-written statement: most of a server's requests are its clients' polls, and the ORM
    built two queries for each (docs/scaling.md). The cursor row comes back with a NULL `data`
    (an entry's never is)."""
    with connection.cursor() as cursor:
        cursor.execute(_read_sql(), [user_id, after, limit, user_id])
        rows = cursor.fetchall()
    entries = sorted((seq, data) for seq, data in rows if data is not None)
    if len(entries) == limit:
        last_seq = entries[-1][0]
    else:
        newest = next((seq for seq, data in rows if data is None), 0)
        last_seq = max(after, newest)
    return {"events": [{**_json(data), "seq": seq} for seq, data in entries], "last_seq": last_seq}


def feed_changed(*, user_id: int, after: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT 1 FROM {FeedCursor._meta.db_table} WHERE user_id = %s AND last_seq > %s",
            [user_id, after],
        )
        return cursor.fetchone() is not None


@functools.cache
def _read_sql() -> str:
    quote = connection.ops.quote_name
    events, cursors = quote(FeedEvent._meta.db_table), quote(FeedCursor._meta.db_table)
    return (
        f"SELECT seq, data FROM (SELECT seq, data FROM {events} WHERE user_id = %s AND seq > %s "
        f"ORDER BY seq LIMIT %s) AS entries "
        f"UNION ALL SELECT last_seq, NULL FROM {cursors} WHERE user_id = %s"
    )


def _json(value):
    # Django reads jsonb (and SQLite's JSON text) as text and decodes it in the field; so here.
    return orjson.loads(value) if isinstance(value, str | bytes) else value
