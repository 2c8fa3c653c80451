"""The long-poll wake-up: "game {id} is at version v" (ARCHITECTURE.md "One action").

It carries no game data, so nothing can leak through it. With no REDIS_URL, waiters fall back to
re-reading the database every EVENTS_POLL_INTERVAL seconds; losing Redis only delays clients.
"""

import asyncio
import contextlib
import logging
import time

from django.conf import settings

from config import shutdown

logger = logging.getLogger(__name__)

_sync_client = None


def channel_name(game_id: int) -> str:
    return f"baohuang:game:{game_id}"


def _client():
    global _sync_client
    if _sync_client is None:
        import redis

        _sync_client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
    return _sync_client


def publish(*, game_id: int, version: int) -> None:
    if not settings.REDIS_URL:
        return
    try:
        _client().publish(channel_name(game_id), str(version))
    except Exception:  # noqa: BLE001 - a lost wake-up only delays waiters until their poll timeout
        logger.warning("wake-up for game %s not published", game_id, exc_info=True)


class Waiter:
    """Subscribe first, then re-read, then wait: a change between the read and the wait still wakes us."""

    def __init__(self, game_id: int):
        self.game_id = game_id
        self._redis = None
        self._pubsub = None

    async def __aenter__(self) -> "Waiter":
        if settings.REDIS_URL:
            try:
                import redis.asyncio as aioredis

                self._redis = aioredis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=1)
                self._pubsub = self._redis.pubsub()
                await self._pubsub.subscribe(channel_name(self.game_id))
            except Exception:  # noqa: BLE001 - fall back to polling the database
                logger.warning("Redis unavailable; polling game %s", self.game_id, exc_info=True)
                await self._close()
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self._close()

    async def _close(self) -> None:
        with contextlib.suppress(Exception):
            if self._pubsub is not None:
                await self._pubsub.aclose()
        with contextlib.suppress(Exception):
            if self._redis is not None:
                await self._redis.aclose()
        self._pubsub = self._redis = None

    async def wait(self, timeout: float) -> None:
        """Return on a wake-up, after `timeout`, (without Redis) after one poll interval, or as soon
        as the process is told to stop (config/shutdown.py)."""
        await shutdown.unless_stopping(self._wait(timeout))

    async def _wait(self, timeout: float) -> None:
        if self._pubsub is None:
            await asyncio.sleep(min(timeout, settings.EVENTS_POLL_INTERVAL))
            return
        end = time.monotonic() + timeout
        while (left := end - time.monotonic()) > 0:
            try:
                message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=left)
            except Exception:  # noqa: BLE001
                await asyncio.sleep(min(left, settings.EVENTS_POLL_INTERVAL))
                return
            if message is not None:
                return
