"""A user's feed (docs/matchmaking.md "Your feed"): one ordered log per user of what is addressed to him
(the entry types are accounts/feed_apis.py FEED_EVENT_TYPES, each explained in docs/client-guide.md §4),
followed by one long-poll or SSE stream.

Appended inside the transaction of the change that causes it (an outbox row, docs/architecture.md), so a
client never learns of a change that was rolled back and never misses one that committed. Numbering
takes the row lock of the user's FeedCursor: callers lock their own rows (game, table) first, and this
one last, so feed appends never deadlock with each other. After commit, each user's wake-up carries
his new entry (infra/wakeups.py).
"""

import functools
import logging
from dataclasses import dataclass

import orjson
from celery import current_app
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.utils import timezone

from accounts.models import FeedCursor, FeedEvent
from accounts.push_kinds import KINDS as PUSH_KINDS
from infra import commit, wakeups
from infra.api.errors import ApiError, ErrorCode
from infra.json_field import json_column
from infra.sql_insert import rows_insert

logger = logging.getLogger(__name__)

# Entries older than this many per user are pruned as new ones arrive: the feed is for following
# what happens now; history has its own endpoints. A cursor older than what is kept is refused
# (`feed_cursor_expired`, docs/client-guide.md §5), never answered with a silent gap.
FEED_KEEP = 500
# The Redis list of (user_id, seq) pairs to push (accounts/push/delivery.py `entries_drain`).
PUSH_QUEUE = "push"
# The most entries one read answers (a long-poll, a stream's catch-up page).
FEED_PAGE = 200


def feed_append(*, user_id: int, type: str, data: dict) -> int:
    """Append one entry to `user_id`'s feed; returns its seq."""
    return feed_append_many([(user_id, type, data)])[0]


def feed_append_many(entries: list[tuple[int, str, dict]]) -> list[int]:
    """Append `(user_id, type, data)` entries; returns their seqs, in order. One user's entries are
    numbered in the order given (a timeout tells its seat's user `timeout`, `trustee` and
    `prompt_closed` in that order). Their users' wake-ups and pushes go once the transaction commits.

    A move does not come here: its unit of work writes its entries with the move's own statement
    (games/work.py, `feed_append_prepare`) and publishes them with the move's one after-commit
    effect (`feed_publish`).
    """
    appended = feed_write(entries)
    if appended.seqs:
        commit.on_commit(lambda: feed_publish(appended))
    return appended.seqs


def feed_write(entries: list[tuple[int, str, dict]]) -> "FeedAppended":
    """Write `(user_id, type, data)` entries, numbered, and return what to publish after the commit
    (`feed_publish`), which the caller owes.

    One statement on PostgreSQL whatever the count (two elsewhere): an upsert numbers every user's
    entries (rows locked in user id order, so two appends to overlapping users cannot deadlock), an
    insert writes the entries. A caller with a statement of its own may carry them in it instead
    (`feed_append_prepare`).
    """
    if not entries:
        return FeedAppended(seqs=[], woken=[], pushable=[])
    prepared = feed_append_prepare(entries)
    if prepared is not None:
        with connection.cursor() as cursor:
            cursor.execute(f"WITH {prepared.ctes} SELECT {prepared.seqs_sql}", prepared.params)
            return feed_appended(prepared, cursor.fetchone()[0])
    batch = _Batch.of(entries)
    last = _number(batch.counts)
    seqs = [last[user_id] - back for user_id, back in zip(batch.user_of, batch.back, strict=True)]
    rows_insert(
        FeedEvent,
        [
            FeedEvent(user_id=user_id, seq=seq, type=data["type"], data=data)
            for user_id, seq, data in zip(batch.user_of, seqs, batch.data, strict=True)
        ],
    )
    return _appended(batch, seqs)


@dataclass(frozen=True)
class _Batch:
    """Entries to append: per entry its user, its data (with its type) and how many of the same
    user's entries in this batch come after it (`back`: its seq is the user's new last seq minus
    that); per user, how many entries (`counts`, in user id order)."""

    user_of: list[int]
    data: list[dict]
    back: list[int]
    counts: dict[int, int]

    @classmethod
    def of(cls, entries: list[tuple[int, str, dict]]) -> "_Batch":
        counts: dict[int, int] = {}
        for user_id, _, _ in entries:
            counts[user_id] = counts.get(user_id, 0) + 1
        seen: dict[int, int] = {}
        back = []
        for user_id, _, _ in entries:
            seen[user_id] = seen.get(user_id, 0) + 1
            back.append(counts[user_id] - seen[user_id])
        return cls(
            user_of=[user_id for user_id, _, _ in entries],
            data=[{"type": type, **data} for _, type, data in entries],
            back=back,
            counts=dict(sorted(counts.items())),
        )


@dataclass(frozen=True)
class PreparedAppend:
    """Feed entries for a caller's PostgreSQL statement to append: `ctes` go in its WITH list (they
    number and insert the entries), with `params` in their place; `seqs_sql` is an expression the
    statement returns (the new seqs, as JSON); `feed_appended` takes it and finishes the append."""

    ctes: str
    params: list
    seqs_sql: str
    batch: _Batch


def feed_append_prepare(entries: list[tuple[int, str, dict]]) -> PreparedAppend | None:
    """`feed_append_many(entries)` as parts of another statement (a move's write carries its
    `your_turn` and `prompt_closed` entries: a round trip fewer); None when there is nothing to
    append or the database is not PostgreSQL (then call `feed_append_many`)."""
    db = connections[DEFAULT_DB_ALIAS]  # not the proxy: a Local lookup per read
    if not entries or db.vendor != "postgresql":
        return None
    batch = _Batch.of(entries)
    data_field = FeedEvent._meta.get_field("data")
    params: list = [value for pair in batch.counts.items() for value in pair]
    for index, (user_id, data) in enumerate(zip(batch.user_of, batch.data, strict=True)):
        params += [index, user_id, batch.back[index], data["type"], data_field.get_db_prep_save(data, db)]
    params.append(timezone.now())
    return PreparedAppend(
        ctes=_append_ctes_sql(len(batch.counts), len(entries)),
        params=params,
        seqs_sql="(SELECT json_agg(json_build_array(position, seq))::text FROM feed_appended)",
        batch=batch,
    )


def feed_appended(prepared: PreparedAppend, seqs) -> "FeedAppended":
    """Finish an append whose statement ran: `seqs` is what its `seqs_sql` gave; the caller owes
    `feed_publish` of the result after its commit."""
    by_position = dict(json_column(seqs) or [])
    if len(by_position) != len(prepared.batch.user_of):
        raise RuntimeError(f"{len(by_position)} feed entries numbered, not {len(prepared.batch.user_of)}")
    return _appended(prepared.batch, [by_position[index] for index in range(len(by_position))])


@dataclass(frozen=True)
class FeedAppended:
    """Entries written: their seqs (in the entries' order) and what their commit publishes: each
    user's wake-up with his new entries, and the entries of the pushable kinds to hand to push."""

    seqs: list[int]
    woken: list[tuple[int, list[dict]]]
    pushable: list[tuple[int, int]]


def _appended(batch: _Batch, seqs: list[int]) -> FeedAppended:
    """After the entries are written: prune, and say what to publish once the transaction commits."""
    pushed: dict[int, list[dict]] = {}
    for user_id, seq, data in zip(batch.user_of, seqs, batch.data, strict=True):
        # Pruned once every 50 entries: when this batch's seqs crossed a multiple of 50.
        if seq > FEED_KEEP and seq % 50 == 0:
            FeedEvent.objects.filter(user_id=user_id, seq__lte=seq - FEED_KEEP).delete()
        # Each wake-up carries its entries, as `feed_read` gives them: an open stream forwards them unread.
        pushed.setdefault(user_id, []).append({**data, "seq": seq})
    woken = [(user_id, sorted(pushed[user_id], key=lambda entry: entry["seq"])) for user_id in sorted(pushed)]
    pushable = [
        (user_id, seq)
        for user_id, seq, data in zip(batch.user_of, seqs, batch.data, strict=True)
        if data["type"] in PUSH_KINDS
    ]
    return FeedAppended(seqs=seqs, woken=woken, pushable=pushable if settings.PUSH_ENABLED else [])


def feed_publish(appended: FeedAppended) -> None:
    """After the commit that wrote them: wake the entries' users' feeds, then hand the pushable
    ones to push."""
    for user_id, entries in appended.woken:
        wakeups.publish_user(user_id=user_id, entries=entries)
    if appended.pushable:
        _push_schedule(appended.pushable)


def _push_schedule(appended: list[tuple[int, int]]) -> None:
    """Hand the new entries of the pushable kinds (accounts/push_kinds.py) to the worker, which pushes
    them to the users' phones (accounts/push/delivery.py, docs/notifications.md), never the push
    itself, so a push service down or slow never delays the request.

    With Redis they join the commit's wake-ups in their one round trip (a list the worker drains
    every PUSH_DRAIN_SECONDS): a Celery message per move cost the move a sixth more CPU
    (bench/push.py). Without Redis, a task per commit, sent by name (the push app builds on this
    module). A lost hand-over loses nothing: the feed keeps the entries, and the worker's sweep
    pushes those no device got (accounts/push/delivery.py `entries_sweep`)."""
    if wakeups.enqueue(queue=PUSH_QUEUE, value=orjson.dumps(appended)):
        return
    try:
        current_app.send_task("push.entries_push", kwargs={"entries": appended})
    except Exception:  # noqa: BLE001
        logger.warning("push task for feed entries %s not scheduled", appended, exc_info=True)


def _number(counts: dict[int, int]) -> dict[int, int]:
    """Take the next `count` seqs of each user's feed; returns each user's new last seq (rows locked
    in user id order, so two appends to overlapping users cannot deadlock)."""
    cursor_table = connection.ops.quote_name(FeedCursor._meta.db_table)
    placeholders = ", ".join(["(%s, %s)"] * len(counts))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {cursor_table} (user_id, last_seq) VALUES {placeholders} "
            f"ON CONFLICT (user_id) DO UPDATE SET last_seq = {cursor_table}.last_seq + EXCLUDED.last_seq "
            "RETURNING user_id, last_seq",
            [value for pair in counts.items() for value in pair],
        )
        return dict(cursor.fetchall())


@functools.lru_cache(maxsize=32)
def _append_ctes_sql(users: int, count: int) -> str:
    """The numbering (an upsert of each user's cursor by his number of entries, in user id order)
    and the entries' insert, as data-modifying WITH items; `feed_appended` lists the new
    (position, seq) pairs, position being the entry's index in the batch."""
    quote = connection.ops.quote_name
    cursors, events = quote(FeedCursor._meta.db_table), quote(FeedEvent._meta.db_table)
    columns = {f.name: quote(f.column) for f in FeedEvent._meta.concrete_fields if not f.primary_key}
    # Every column is written below; a field added to FeedEvent must be added here too.
    assert set(columns) == {"user", "seq", "type", "data", "created_at"}, columns
    numbering = ", ".join(["(%s::bigint, %s::bigint)"] * users)
    values = ", ".join(["(%s::int, %s::bigint, %s::int, %s::varchar, %s::jsonb)"] * count)
    return (
        f"feed_numbered AS (INSERT INTO {cursors} (user_id, last_seq) VALUES {numbering} "
        f"ON CONFLICT (user_id) DO UPDATE SET last_seq = {cursors}.last_seq + EXCLUDED.last_seq "
        "RETURNING user_id, last_seq), "
        f"feed_entries (position, user_id, back, type, data) AS (VALUES {values}), "
        f"feed_inserted AS (INSERT INTO {events} ({columns['user']}, {columns['seq']}, "
        f"{columns['type']}, {columns['data']}, {columns['created_at']}) "
        "SELECT e.user_id, n.last_seq - e.back, e.type, e.data, %s "
        "FROM feed_entries e JOIN feed_numbered n ON n.user_id = e.user_id "
        f"RETURNING {columns['user']}, {columns['seq']}), "
        "feed_appended (position, seq) AS (SELECT e.position, n.last_seq - e.back "
        "FROM feed_entries e JOIN feed_numbered n ON n.user_id = e.user_id)"
    )


def feed_read(*, user_id: int, after: int, limit: int = FEED_PAGE) -> dict:
    """Entries after `after`, oldest first; `last_seq` is what to pass as `after` next time.

    A cursor the feed cannot continue is refused rather than answered with a gap: past the newest
    entry (`feed_cursor_ahead`: echoing it back would skip every entry until the feed caught up)
    or before entries that were pruned (`feed_cursor_expired`); both carry the feed's `last_seq`
    (docs/client-guide.md §5). `after=0` asks from the beginning: it gets the oldest entries kept.
    Entries are numbered 1, 2, 3… without gaps (the user's cursor row takes the next number in the
    entry's own transaction), so a first entry later than `after + 1` means the ones between were
    pruned.

    One hand-written statement: most of a server's requests are its clients' polls, and the ORM
    built two queries for each (docs/scaling.md). The cursor row comes back with a NULL `data`
    (an entry's never is)."""
    with connection.cursor() as cursor:
        cursor.execute(_read_sql(), [user_id, after, limit, user_id])
        rows = cursor.fetchall()
    entries = sorted((seq, data) for seq, data in rows if data is not None)
    newest = next((seq for seq, data in rows if data is None), 0)
    if after > newest:
        raise ApiError(
            ErrorCode.FEED_CURSOR_AHEAD,
            f"Your feed ends at {newest}: follow it from there.",
            extra={"last_seq": newest},
        )
    if after > 0 and ((entries and entries[0][0] != after + 1) or (not entries and newest > after)):
        raise ApiError(
            ErrorCode.FEED_CURSOR_EXPIRED,
            f"The entries after {after} are gone: read me/active, then follow from {newest}.",
            extra={"last_seq": newest},
        )
    last_seq = entries[-1][0] if entries else newest
    return {"events": [{**json_column(data), "seq": seq} for seq, data in entries], "last_seq": last_seq}


def feed_last_seq(*, user_id: int) -> int:
    """The seq of the user's newest entry (0: none yet): where a client starts to follow from now."""
    return FeedCursor.objects.filter(user_id=user_id).values_list("last_seq", flat=True).first() or 0


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

