"""Publishing wake-ups: after a commit, "this log changed" to whoever follows it (docs/architecture.md
"One action", step 3).

A message may also carry the entries the commit appended, so that an open stream forwards them
without reading the database (events/streams.py). Those are the stored rows, every seat's private
ones too: Redis is inside the server's trust boundary, as PostgreSQL is, and a stream applies the
same visibility rule to them that the database read does (or reads the database instead). A client
never sees a message. A lost message only delays a follower until its next read; a message that
cannot be sent (Redis down) is logged and skipped, never an error of the request that committed.

Besides the logs there is each user's access channel: a change to what a user may read (he left a
table, was banned, a token of his was revoked) is published there, and his open streams check
again at once and end if he may no longer read them.
"""

import contextlib
import functools
import logging
import threading

import orjson
from django.conf import settings

from infra import commit

logger = logging.getLogger(__name__)

_sync_client = None


def channel_prefix_for(redis_url: str | None) -> str:
    """Where this deployment's channels are named. Redis keeps keys apart by database number, but
    not pub/sub channels: two deployments (or a test run beside a benchmark) on one Redis server,
    each with a database of its own, would wake each other's followers with each other's log
    entries (game ids coincide). The database number is part of every channel's name."""
    database = 0
    if redis_url:
        from redis.connection import parse_url

        database = int(parse_url(redis_url).get("db") or 0)
    return f"baohuang:{database}:"


def channel_prefix() -> str:
    return _prefix(settings.REDIS_URL)


_prefix = functools.lru_cache(maxsize=4)(channel_prefix_for)


def channel_name(game_id: int) -> str:
    return f"{channel_prefix()}game:{game_id}"


def table_channel_name(table_id: int) -> str:
    return f"{channel_prefix()}table:{table_id}"


def user_channel_name(user_id: int) -> str:
    return f"{channel_prefix()}user:{user_id}"


def ticket_channel_name(ticket_id: int) -> str:
    return f"{channel_prefix()}ticket:{ticket_id}"


def access_channel_name(user_id: int) -> str:
    return f"{channel_prefix()}access:{user_id}"


def redis_client():
    """The process's Redis client for publishing (thread-safe, on a blocking pool)."""
    return _client()


def _client():
    global _sync_client
    if _sync_client is None:
        import redis

        # Blocking: a burst of commits in many request threads waits for a connection, not fails.
        pool = redis.BlockingConnectionPool.from_url(
            settings.REDIS_URL,
            max_connections=settings.REDIS_MAX_CONNECTIONS,
            timeout=5,
            socket_timeout=1,
            socket_connect_timeout=1,
        )
        _sync_client = redis.Redis(connection_pool=pool)
    return _sync_client


def client_reset() -> None:
    """Drop the process's publishing client (closing its connections): the next publish connects to
    REDIS_URL as it is then. For a process whose settings changed: a test pointing REDIS_URL at its
    own database."""
    global _sync_client
    client, _sync_client = _sync_client, None
    if client is not None:
        client.connection_pool.disconnect()


# Entries past this size go unsent (the message says "changed" only): a deal's opening deals five
# hands, a few kilobytes; a long trustee chain may be more, and its followers read it once.
MAX_ENTRIES_BYTES = 64 * 1024


_batch = threading.local()  # .messages / .queued: what `batched` holds back in this thread


@contextlib.contextmanager
def batched():
    """Send the wake-ups published inside in one round trip to Redis, when the block ends.

    A move's commit wakes the game's followers and the next player's feed: two round trips, each a
    twentieth of the move's CPU. Wrap the transaction (`with batched(), transaction.atomic():`) so
    that its after-commit publishes leave together right after it commits; only committed changes
    publish (from `transaction.on_commit`), so what is held back is always sent, even when the
    block ends with an exception. Nested blocks send with the outermost. Values `enqueue`d inside
    leave in the same round trip."""
    if getattr(_batch, "messages", None) is not None:
        yield
        return
    _batch.messages, _batch.queued = [], []
    try:
        yield
    finally:
        messages, _batch.messages = _batch.messages, None
        queued, _batch.queued = _batch.queued, None
        if messages or queued:
            _send(messages, queued)


def send_held() -> None:
    """Send what the open `batched` block holds now, and go on holding what comes after: the
    wake-ups of a commit go out before its slower after-commit work (Celery tasks to schedule)."""
    messages = getattr(_batch, "messages", None)
    queued = getattr(_batch, "queued", None)
    if messages or queued:
        _batch.messages, _batch.queued = [], []
        _send(messages, queued)


def _publish(channel: str, value: int | bytes) -> None:
    if not settings.REDIS_URL:
        return
    message = (channel, value if isinstance(value, bytes) else str(value))
    held = getattr(_batch, "messages", None)
    if held is not None:
        held.append(message)
    else:
        _send([message])


def queue_name(name: str) -> str:
    return f"{channel_prefix()}queue:{name}"


def enqueue(*, queue: str, value: bytes) -> bool:
    """Append `value` to this deployment's Redis list `queue`, with the wake-ups (in their round trip
    inside `batched`); False without Redis (the caller then hands it over another way). A value
    that cannot be sent (Redis down) is logged and lost, as a wake-up is."""
    if not settings.REDIS_URL:
        return False
    held = getattr(_batch, "queued", None)
    if held is not None:
        held.append((queue_name(queue), value))
    else:
        _send([], [(queue_name(queue), value)])
    return True


def dequeue(*, queue: str, count: int) -> list[bytes]:
    """Take up to `count` values from the head of the list `queue` (atomically: two takers never
    get the same value)."""
    return _client().lpop(queue_name(queue), count) or []


def _send(messages: list[tuple[str, bytes | str]], queued: list[tuple[str, bytes]] = ()) -> None:
    try:
        if len(messages) == 1 and not queued:
            _client().publish(*messages[0])
            return
        pipeline = _client().pipeline(transaction=False)
        for channel, value in messages:
            pipeline.publish(channel, value)
        for key, value in queued:
            pipeline.rpush(key, value)
        pipeline.execute()
    except Exception:  # noqa: BLE001 - a lost wake-up only delays waiters until their poll timeout
        logger.warning(
            "wake-ups on %s (and %s queued values) not sent",
            [c for c, _ in messages],
            len(queued),
            exc_info=True,
        )


def entries_message(*, after: int, entries: list[dict], **also) -> bytes | None:
    """A message carrying `entries` (each with its `seq`, in order), which are every entry of the
    log after `after` up to the last one's seq, and `also` (a game's `version`); None when too big
    to send."""
    last = entries[-1]["seq"] if entries else after
    message = orjson.dumps({**also, "after": after, "last": last, "entries": entries})
    return message if len(message) <= MAX_ENTRIES_BYTES else None


def publish(
    *, game_id: int, version: int, after: int | None = None, entries: list[dict] | None = None
) -> None:
    """Game `game_id` changed (now at `version`); with `entries`, what it appended after seq `after`.
    The message is the version alone, or a JSON object with `version` beside the entries."""
    message = entries_message(after=after, entries=entries, version=version) if entries is not None else None
    _publish(channel_name(game_id), message or version)


def publish_table(*, table_id: int, seq: int) -> None:
    _publish(table_channel_name(table_id), seq)


def publish_user(*, user_id: int, seq: int | None = None, entries: list[dict] | None = None) -> None:
    """Entries were appended to the user's feed: up to `seq`, or `entries` (as the feed reads
    them, consecutive, with their seqs), which the message carries."""
    if entries:
        message = entries_message(after=entries[0]["seq"] - 1, entries=entries)
        _publish(user_channel_name(user_id), message or entries[-1]["seq"])
    else:
        _publish(user_channel_name(user_id), seq)


def publish_ticket(*, ticket_id: int) -> None:
    """A ticket left `waiting` (matched, cancelled or expired); its long-polls re-read it."""
    _publish(ticket_channel_name(ticket_id), ticket_id)


def publish_access(*, user_ids) -> None:
    """What these users may read changed: their open streams check their rights again now. Sent
    after the commit that changed it (or at once, outside a transaction), so the check sees it."""
    user_ids = sorted({user_id for user_id in user_ids if user_id is not None})
    if not user_ids or not settings.REDIS_URL:
        return
    commit.on_commit(lambda: [_publish(access_channel_name(user_id), 0) for user_id in user_ids])
