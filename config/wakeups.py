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


def table_channel_name(table_id: int) -> str:
    return f"baohuang:table:{table_id}"


def user_channel_name(user_id: int) -> str:
    return f"baohuang:user:{user_id}"


def ticket_channel_name(ticket_id: int) -> str:
    return f"baohuang:ticket:{ticket_id}"


def _client():
    global _sync_client
    if _sync_client is None:
        import redis

        _sync_client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
    return _sync_client


def _publish(channel: str, value: int) -> None:
    if not settings.REDIS_URL:
        return
    try:
        _client().publish(channel, str(value))
    except Exception:  # noqa: BLE001 - a lost wake-up only delays waiters until their poll timeout
        logger.warning("wake-up on %s not published", channel, exc_info=True)


def publish(*, game_id: int, version: int) -> None:
    _publish(channel_name(game_id), version)


def publish_table(*, table_id: int, seq: int) -> None:
    _publish(table_channel_name(table_id), seq)


def publish_user(*, user_id: int, seq: int) -> None:
    _publish(user_channel_name(user_id), seq)


def publish_ticket(*, ticket_id: int) -> None:
    """A ticket left `waiting` (matched, cancelled or expired); its long-polls re-read it."""
    _publish(ticket_channel_name(ticket_id), ticket_id)


class Waiter:
    """Subscribe first, then re-read, then wait: a change between the read and the wait still wakes us."""

    def __init__(self, game_id: int | None = None, *, channel: str | None = None):
        self.channel = channel or channel_name(game_id)
        self._redis = None
        self._pubsub = None

    async def __aenter__(self) -> "Waiter":
        if settings.REDIS_URL:
            try:
                import redis.asyncio as aioredis

                self._redis = aioredis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=1)
                self._pubsub = self._redis.pubsub()
                await self._pubsub.subscribe(self.channel)
            except Exception:  # noqa: BLE001 - fall back to polling the database
                logger.warning("Redis unavailable; polling for %s", self.channel, exc_info=True)
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
