"""Reading a Server-Sent Events answer of the Django test client (tests of the game log and feed streams)."""

import json

from asgiref.sync import async_to_sync


def read_stream(response) -> str:
    async def collect():
        return b"".join([chunk async for chunk in response.streaming_content])

    return async_to_sync(collect)().decode()


def parse(text: str) -> list[dict]:
    """The `data` of each entry, checked against its `id` and `event` lines."""
    entries = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":"))
        if "data" not in fields:
            continue
        data = json.loads(fields["data"])
        assert fields["id"] == str(data["seq"]) and fields["event"] == data["type"], block
        entries.append(data)
    return entries


def use_redis(settings, db: int = 14) -> None:
    """Wake-ups through the local Redis, as in production: streams get what each commit appended
    from its message (tests.conftest.require_local_redis: a missing Redis fails in CI)."""
    from infra import wakeups
    from tests.conftest import require_local_redis

    url = f"redis://127.0.0.1:6379/{db}"
    require_local_redis(url)
    settings.REDIS_URL = url
    wakeups.client_reset()  # the publishing client of another test's URL


def counting_reads(log_factory, reads: list):
    """`log_factory` (games.event_stream.followed_log, accounts.feed_apis._followed_feed) whose logs
    append to `reads` the `after` of every read a stream makes of its log."""
    import dataclasses

    def factory(*args, **kwargs):
        log = log_factory(*args, **kwargs)

        def read(after):
            reads.append(after)
            return log.read(after)

        return dataclasses.replace(log, read=read)

    return factory


async def follow_while(responses, act, *, done, timeout: float = 15.0) -> list[str]:
    """Read every stream of `responses` at once, each in its own task (so all are subscribed and
    waiting together, as clients' streams are); `await act()` once each has read its log after
    subscribing (`act` is given nothing; it decides when that is by itself and returns when it
    has acted); then read until `done(texts)` holds or `timeout` passes. Returns the texts."""
    import asyncio
    import time

    texts = [""] * len(responses)

    async def follow(index, response):
        async for chunk in response.streaming_content:
            texts[index] += chunk.decode()

    tasks = [asyncio.create_task(follow(i, r)) for i, r in enumerate(responses)]
    try:
        await act()
        deadline = time.monotonic() + timeout
        while not done(texts) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return texts


def seconds_to_end_after_logout(client, response) -> float:
    """Open `response`'s stream, log `client` out (revoking its token), and return how long the
    stream then took to end by itself."""
    import time

    from asgiref.sync import sync_to_async

    async def follow():
        chunks = aiter(response.streaming_content)
        await anext(chunks)
        logged_out = await sync_to_async(client.post)("/api/v1/auth/logout")
        assert logged_out.status_code == 204
        started = time.monotonic()
        async for _ in chunks:
            pass
        return time.monotonic() - started

    return async_to_sync(follow)()
