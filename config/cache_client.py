"""django-redis's client, with one connected Redis client per server URL for the whole process.

Django keeps a cache backend per request context (asgiref Local), so under ASGI every request built
a new backend and django-redis a new `Redis` client for it: half the cost of a token-cache read
(docs/scaling.md). `redis.Redis` is thread-safe (its connection pool is), so every backend of the
process may share the one client of its URL; the pool itself was already shared (django_redis.pool).
"""

import threading

from django_redis.client import DefaultClient

_clients: dict[str, object] = {}
_lock = threading.Lock()


class SharedRedisClient(DefaultClient):
    def connect(self, index: int = 0):
        url = self._server[index]
        client = _clients.get(url)
        if client is None:
            with _lock:
                client = _clients.get(url)
                if client is None:
                    client = _clients[url] = super().connect(index)
        return client
