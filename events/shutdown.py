"""Releasing long-polls when the web process is told to stop.

uvicorn (alone or as gunicorn's worker) answers SIGTERM by closing its listening socket and then
waiting for every open request to finish; only after that does it send the ASGI lifespan shutdown.
An events long-poll may wait 30 s, longer than an orchestrator's grace period. So the process's SIGTERM
and SIGINT handlers are chained, once the server has installed its own (at lifespan startup): ours
marks the process as stopping and wakes every waiter, then the server's handler runs as before.
A waiter (infra/wakeups.py) that sees the mark stops waiting and answers with what it has.
"""

import asyncio
import signal
import threading
import weakref

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)

_requested = threading.Event()
_installed = False
# One asyncio.Event per event loop (a process has one, tests may make more).
_loop_events: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Event]" = (
    weakref.WeakKeyDictionary()
)
# Events that the stop sets, per event loop (`wake_on_stop`), held weakly: they go with their owners.
_woken_on_stop: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, weakref.WeakSet[asyncio.Event]]" = (
    weakref.WeakKeyDictionary()
)


def is_requested() -> bool:
    return _requested.is_set()


def request() -> None:
    """Mark the process as stopping and wake every waiter; safe from a signal handler or any thread."""
    _requested.set()
    for loop, event in list(_loop_events.items()):
        if not loop.is_closed():
            loop.call_soon_threadsafe(event.set)
    for loop, events in list(_woken_on_stop.items()):
        if not loop.is_closed():
            loop.call_soon_threadsafe(_set_all, events)


def _set_all(events: "weakref.WeakSet[asyncio.Event]") -> None:
    for event in list(events):
        event.set()


def wake_on_stop(event: asyncio.Event) -> None:
    """Set `event` (of the running loop) when the process is told to stop, at once if it already
    was. A waiter whose wake-up event is registered here awaits that event alone: racing every wait
    against the stop with `unless_stopping` costs two tasks and an `asyncio.wait` per wait, which a
    stream does for every entry it forwards."""
    if _requested.is_set():
        event.set()
        return
    loop = asyncio.get_running_loop()
    events = _woken_on_stop.get(loop)
    if events is None:
        events = _woken_on_stop[loop] = weakref.WeakSet()
    events.add(event)


def reset() -> None:
    """For tests that stop and start again within one process."""
    _requested.clear()
    for event in list(_loop_events.values()):
        event.clear()


def _event() -> asyncio.Event:
    loop = asyncio.get_running_loop()
    event = _loop_events.get(loop)
    if event is None:
        event = _loop_events[loop] = asyncio.Event()
        if _requested.is_set():
            event.set()
    return event


async def unless_stopping(awaitable):
    """Await `awaitable` and return its result, or give it up (None) as soon as the process is told
    to stop."""
    if _requested.is_set():
        if asyncio.iscoroutine(awaitable):
            awaitable.close()
        return None
    work = asyncio.ensure_future(awaitable)
    stopping = asyncio.ensure_future(_event().wait())
    try:
        await asyncio.wait({work, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (work, stopping):
            if not task.done():
                task.cancel()
    if work.done() and not work.cancelled():
        return work.result()
    return None


def install_signal_handlers() -> None:
    """Chain our handler in front of the current SIGTERM/SIGINT handlers (the server's); once."""
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    _installed = True
    for signum in STOP_SIGNALS:
        previous = signal.getsignal(signum)

        def handler(received, frame, previous=previous):
            request()
            if callable(previous):
                previous(received, frame)
            elif previous == signal.SIG_DFL:
                signal.signal(received, signal.SIG_DFL)
                signal.raise_signal(received)

        signal.signal(signum, handler)
