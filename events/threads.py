"""Running the synchronous part of a request (the token lookup, the ORM's reads) off the event loop.

Each call runs in a thread of asgiref's pool (`sync_to_async(thread_sensitive=False)`: the reads of
different requests do not queue behind one another), and gives its database connections back before
it returns: a waiting long-poll or an open stream holds no connection (with DB_POOL_MAX_SIZE they go
back to the pool; without one they are closed). A connection inside a transaction (a test's) is not
ours to close.
"""

import functools
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from asgiref.sync import sync_to_async
from django.db import connections

P = ParamSpec("P")
T = TypeVar("T")


def connections_release() -> None:
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()


def in_thread(function: Callable[P, T]) -> Callable[P, Awaitable[T]]:
    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        finally:
            connections_release()

    return sync_to_async(call, thread_sensitive=False)
