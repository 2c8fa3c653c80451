"""Reused worker threads for the synchronous part of requests.

Django's ASGI handler gives each request a new single-thread executor (asgiref's
`ThreadSensitiveContext`), so every request starts a thread for its view and another to join it, and
everything kept per thread (the database connection handle, Celery's producer and backend objects)
is built again each time: about 1 ms of CPU per request on the development machine
(docs/scaling.md). Here a request borrows an idle executor and gives it back when it ends, as a
threaded WSGI server does; Django's own context then sees one set and leaves it alone.

Still one thread per request in flight, so one request's sync calls never wait behind another's. A
request cancelled while its view runs gives back an executor that is still busy; the next borrower's
calls queue behind it on the same thread, never beside it.
"""

from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

from asgiref.sync import ThreadSensitiveContext

# Executors kept for reuse after a burst; more than this many idle ones are shut down.
MAX_IDLE = 32

# Only the event loop's thread touches this list.
_idle: list[ThreadPoolExecutor] = []


@asynccontextmanager
async def request_thread() -> AsyncIterator[None]:
    executor = _idle.pop() if _idle else ThreadPoolExecutor(max_workers=1, thread_name_prefix="request")
    try:
        async with ThreadSensitiveContext(executor=executor):
            yield
    finally:
        if len(_idle) < MAX_IDLE:
            _idle.append(executor)
        else:
            executor.shutdown(wait=False)
