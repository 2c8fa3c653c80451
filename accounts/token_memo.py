"""This process's memo of the shared token cache (accounts/token_cache.py), kept honest by a
Redis channel on which every process says which tokens to forget.

A token-cache read is a Redis round trip and an unpickling behind django-redis: a tenth of a
move's CPU (docs/scaling.md). A player's client sends a request every few seconds, so the
process that answered the last one mostly holds the answer already. A memo in one process must
still forget a revoked token the moment another process revokes it: `forget` publishes the
token's hash on `forget_channel()` and a listener thread in every process drops it from its memo.

The memo answers only while that listener's subscription is live: until Redis has confirmed it,
and from the moment its connection fails (the memo is then emptied), every lookup goes to the
shared cache as before. A forget that arrives while a lookup is between the shared cache and the
memo stops the lookup from keeping its answer (a generation count). The memo keeps pickled bytes,
so each request gets its own token and user objects, as from the shared cache, and an entry for
at most AUTH_TOKEN_MEMO_SECONDS: a bound on staleness should a forget ever be lost (a connection
that dies silently is found by the listener's own pings).
"""

import logging
import os
import pickle
import threading
import time

from django.conf import settings

logger = logging.getLogger(__name__)


def forget_channel() -> str:
    """The channel of this deployment's forgets (named after its Redis database: infra/wakeups.py)."""
    from infra import wakeups

    return f"{wakeups.channel_prefix()}authtoken:forget"


MAX_ENTRIES = 20_000  # emptied whole when full (a busy process re-reads the shared cache once)
HEALTH_CHECK_SECONDS = 10

_memo: dict[str, tuple[float, bytes]] = {}  # key hash -> (monotonic expiry, pickled token)
_generation = 0  # forgets heard so far (a lookup keeps its answer only if none came meanwhile)
_live = False  # the listener's subscription is confirmed and its connection healthy
_listener_pid: int | None = None  # the process that started the listener (a fork has none)
_start_lock = threading.Lock()


def _enabled() -> bool:
    return (
        bool(settings.REDIS_URL)
        and settings.AUTH_TOKEN_CACHE_SECONDS > 0
        and settings.AUTH_TOKEN_MEMO_SECONDS > 0
    )


def answering() -> bool:
    """Does the memo answer now? Starts this process's listener on first use."""
    if not _enabled():
        return False
    if _listener_pid != os.getpid():
        _listener_start()
        return False
    return _live


def generation() -> int:
    return _generation


def recall(key_hash: str):
    """The token remembered under this hash (a fresh object), or None."""
    if not answering():
        return None
    entry = _memo.get(key_hash)
    if entry is None:
        return None
    if entry[0] <= time.monotonic():
        _memo.pop(key_hash, None)
        return None
    return pickle.loads(entry[1])  # noqa: S301 - bytes this process pickled itself


def keep(key_hash: str, token, *, since: int) -> None:
    """Remember `token`, looked up from the shared cache when the generation was `since`, unless a
    forget has come meanwhile."""
    if not answering() or _generation != since:
        return
    if len(_memo) >= MAX_ENTRIES:
        _memo.clear()
    _memo[key_hash] = (time.monotonic() + settings.AUTH_TOKEN_MEMO_SECONDS, pickle.dumps(token))
    if _generation != since:  # a forget came between the test above and the line before
        _memo.pop(key_hash, None)


def forget_here(key_hashes: list[str]) -> None:
    """Forget these tokens in this process."""
    global _generation
    _generation += 1
    for key_hash in key_hashes:
        _memo.pop(key_hash, None)


def forget_everywhere(key_hashes: list[str]) -> None:
    """Forget these tokens in this process now and in every process listening (this one's
    listener hears it too)."""
    forget_here(key_hashes)
    if not settings.REDIS_URL or not key_hashes:
        return
    from infra import wakeups

    try:
        wakeups.redis_client().publish(forget_channel(), " ".join(key_hashes))
    except Exception:  # noqa: BLE001 - the memos then forget by AUTH_TOKEN_MEMO_SECONDS
        logger.warning("token forget not published", exc_info=True)


def _listener_start() -> None:
    global _listener_pid, _live
    with _start_lock:
        if _listener_pid == os.getpid():
            return
        _listener_pid, _live = os.getpid(), False
        _memo.clear()  # a forked child starts with its parent's memo and no listener
        threading.Thread(target=_listen_forever, name="token-memo-forgets", daemon=True).start()


def _listen_forever() -> None:
    pid, pause = os.getpid(), 0.5
    while _listener_pid == pid:
        started = time.monotonic()
        try:
            _listen()
        except Exception:  # noqa: BLE001 - Redis down or restarted: lookups use the shared cache
            logger.warning("token memo listener lost its connection", exc_info=True)
        # (`_listen` stopped the memo answering on its way out.) Back off while Redis keeps
        # failing; after a connection that lasted, try again soon.
        pause = 0.5 if time.monotonic() - started > 60 else min(pause * 2, 30.0)
        time.sleep(pause)


def _listen() -> None:
    import redis

    global _live
    client = redis.Redis.from_url(
        settings.REDIS_URL,
        socket_connect_timeout=1,
        socket_timeout=HEALTH_CHECK_SECONDS * 2,
        client_name=f"token-memo-{os.getpid()}",
    )
    pubsub = client.pubsub()
    try:
        pubsub.subscribe(forget_channel())
        owed, next_ping = 0, time.monotonic() + HEALTH_CHECK_SECONDS
        while True:
            # A connection that died without a word (no reset) answers nothing: with no traffic the
            # listener pings every HEALTH_CHECK_SECONDS and gives the connection up when three
            # pongs are owed, so the memo stops answering before a forget could be missed for long.
            if time.monotonic() >= next_ping:
                if owed >= 3:
                    raise ConnectionError("the forget channel's connection stopped answering")
                pubsub.ping()
                owed, next_ping = owed + 1, time.monotonic() + HEALTH_CHECK_SECONDS
            message = pubsub.get_message(timeout=1.0)
            if message is None:
                continue
            owed = 0  # anything heard proves the connection alive
            if message["type"] == "subscribe":
                _memo.clear()
                _live = True
            elif message["type"] == "message":
                data = message["data"]
                forget_here((data.decode() if isinstance(data, bytes) else data).split())
    finally:
        _stop_answering()
        pubsub.close()
        client.close()


def _stop_answering() -> None:
    global _live
    _live = False
    forget_here(list(_memo))
    _memo.clear()
