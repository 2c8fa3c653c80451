"""Errors that mean the server cannot answer now, not that it is broken: a request that waited out a
pool's whole timeout for a connection (PostgreSQL's or Redis's), or that found the database
unreachable (stopped, restarting, a failover) or its transaction chosen as a deadlock's victim, did
nothing, and the same request a moment later may well succeed. The API answers them 503
`service_unavailable` with `Retry-After` (infra/api/handler.py); an open event stream ends, and its
client reconnects (events/streams.py)."""


def server_busy(exc: BaseException) -> bool:
    return _database_pool_exhausted(exc) or _redis_pool_exhausted(exc) or database_unavailable(exc)


def database_unavailable(exc: BaseException) -> bool:
    """Django's OperationalError and InterfaceError: the connection failed or was lost, the server is
    shutting down, or the transaction was rolled back by the server (a deadlock, a serialization
    failure). Nothing of the request was committed. (IntegrityError and ProgrammingError are bugs
    or bad data, not this.)"""
    from django.db import InterfaceError, OperationalError

    return isinstance(exc, OperationalError | InterfaceError)


def _database_pool_exhausted(exc: BaseException) -> bool:
    """Every connection of the process's psycopg pool stayed busy (Django wraps the pool's
    PoolTimeout in an OperationalError)."""
    from django.db import OperationalError

    if not isinstance(exc, OperationalError):
        return False
    try:
        from psycopg_pool import PoolTimeout
    except ImportError:  # SQLite, or PostgreSQL without the pool
        return False
    return isinstance(exc.__cause__, PoolTimeout)


# What redis-py's BlockingConnectionPool raises when no connection came free within its timeout
# (settings CACHES: the token cache and the rate limits' counters). redis-py has no class of its
# own for it, only this message; tests/api/test_busy_database.py takes it from a real pool, so an
# upgrade that changes it fails there rather than turning these back into 500s.
_REDIS_POOL_EMPTY = "No connection available."


def _redis_pool_exhausted(exc: BaseException) -> bool:
    try:
        from redis.exceptions import ConnectionError as RedisConnectionError
    except ImportError:
        return False
    return isinstance(exc, RedisConnectionError) and exc.args == (_REDIS_POOL_EMPTY,)
