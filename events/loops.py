"""What the event server keeps per event loop (a worker has one; tests start several)."""

import asyncio
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def of_running_loop(registry: dict[asyncio.AbstractEventLoop, T], make: Callable[[], T]) -> T:
    """The running loop's entry of `registry`, made by `make()` the first time; entries of closed
    loops are dropped then (their connections and tasks went with them)."""
    loop = asyncio.get_running_loop()
    entry = registry.get(loop)
    if entry is None:
        for stale in [other for other in registry if other.is_closed()]:
            del registry[stale]
        entry = registry[loop] = make()
    return entry
