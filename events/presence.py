"""Marking who watches (infra/presence.py reads it): while a user holds a stream or a waiting long-poll
in this process (events/caps.py), his Redis hash has this process's field, holding until when.

One refresher task per event loop rewrites the marks of everyone held every third of
PUSH_PRESENCE_SECONDS, so a process that dies leaves marks that run out by themselves. The last stream
of a user ending removes his mark at once (an app sent to the background is pushed its next turn); a
long-poll's mark outlives it by PUSH_PRESENCE_SECONDS, the gap to the client's next poll.
A Redis failure is logged and skipped: the worker then pushes.
"""

import asyncio
import logging
import os
import socket
import time

from django.conf import settings

from events.loops import of_running_loop
from infra.presence import presence_key

logger = logging.getLogger(__name__)

_FIELD = f"{socket.gethostname()}:{os.getpid()}"


class _Marks:
    def __init__(self) -> None:
        self.held: dict[int, int] = {}  # user id -> holds in this loop
        self.refresher: asyncio.Task | None = None
        self.redis = None


_marks: dict[asyncio.AbstractEventLoop, _Marks] = {}


def _of_loop() -> _Marks | None:
    if not settings.REDIS_URL:
        return None
    return of_running_loop(_marks, _Marks)


def _client(marks: _Marks):
    if marks.redis is None:
        import redis.asyncio

        marks.redis = redis.asyncio.Redis.from_url(
            settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1
        )
    return marks.redis


async def _write(marks: _Marks, user_ids: list[int]) -> None:
    until = str(time.time() + settings.PUSH_PRESENCE_SECONDS)
    try:
        pipeline = _client(marks).pipeline(transaction=False)
        for user_id in user_ids:
            pipeline.hset(presence_key(user_id), _FIELD, until)
            pipeline.expire(presence_key(user_id), int(settings.PUSH_PRESENCE_SECONDS) + 1)
        await pipeline.execute()
    except Exception:  # noqa: BLE001
        logger.warning("presence of %s users not marked", len(user_ids), exc_info=True)


async def _remove(marks: _Marks, user_id: int) -> None:
    try:
        await _client(marks).hdel(presence_key(user_id), _FIELD)
    except Exception:  # noqa: BLE001
        logger.warning("presence of user %s not cleared", user_id, exc_info=True)


async def _refresh(marks: _Marks) -> None:
    while marks.held:
        await asyncio.sleep(settings.PUSH_PRESENCE_SECONDS / 3)
        if marks.held:
            await _write(marks, list(marks.held))
    marks.refresher = None


def hold(user_id: int) -> None:
    """A stream or long-poll of `user_id` starts in this loop."""
    marks = _of_loop()
    if marks is None:
        return
    marks.held[user_id] = marks.held.get(user_id, 0) + 1
    if marks.held[user_id] == 1:
        asyncio.get_running_loop().create_task(_write(marks, [user_id]))
    if marks.refresher is None:
        marks.refresher = asyncio.get_running_loop().create_task(_refresh(marks))


def release(user_id: int, *, linger: bool = False) -> None:
    """It ended. `linger`: a long-poll's client comes back with its next poll, and the entry that
    answered this one is being pushed now; its mark runs out by itself rather than be removed."""
    marks = _of_loop()
    if marks is None or user_id not in marks.held:
        return
    marks.held[user_id] -= 1
    if not marks.held[user_id]:
        del marks.held[user_id]
        if not linger:
            asyncio.get_running_loop().create_task(_remove(marks, user_id))
