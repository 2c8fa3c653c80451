"""Calling the event server (config/asgi.py `events_application`) from a test, as a server would.

Its reads run in asgiref's worker threads, each with a database connection of its own, so tests
that call it see only committed rows: they use `django_db(transaction=True)`.
"""

import asyncio
import json
from dataclasses import dataclass
from urllib.parse import urlencode

from asgiref.sync import async_to_sync

from config.asgi import events_application


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self):
        return json.loads(self.body)

    # As Django's test responses name them (tests.conftest.assert_error reads these).
    @property
    def status_code(self) -> int:
        return self.status

    @property
    def content(self) -> bytes:
        return self.body

    def __getitem__(self, name: str) -> str:
        return self.headers[name.lower()]


def _scope(path: str, *, query: dict | None, token: str | None, headers: dict | None) -> dict:
    scope_headers = [(b"host", b"testserver")]
    if token is not None:
        scope_headers.append((b"authorization", f"Bearer {token}".encode()))
    for name, value in (headers or {}).items():
        scope_headers.append((name.lower().encode("latin-1"), value.encode("latin-1")))
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": urlencode(query or {}).encode(),
        "headers": scope_headers,
        "client": ("127.0.0.1", 40000),
        "server": ("testserver", 80),
    }


class Call:
    """One request in flight: its answer's start, then its body as it comes."""

    def __init__(self, scope: dict, app=events_application) -> None:
        self._messages: asyncio.Queue = asyncio.Queue()
        self._gone = asyncio.Event()
        self._sent_body = False
        self._task = asyncio.create_task(app(scope, self._receive, self._send))
        self.status: int | None = None
        self.headers: dict[str, str] = {}

    async def _receive(self):
        if not self._sent_body:
            self._sent_body = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self._gone.wait()
        return {"type": "http.disconnect"}

    async def _send(self, message) -> None:
        await self._messages.put(message)

    async def start(self) -> "Call":
        message = await self._next()
        assert message["type"] == "http.response.start", message
        self.status = message["status"]
        self.headers = {k.decode().lower(): v.decode() for k, v in message["headers"]}
        return self

    async def _next(self):
        getter = asyncio.ensure_future(self._messages.get())
        done, _ = await asyncio.wait({getter, self._task}, return_when=asyncio.FIRST_COMPLETED)
        if getter in done:
            return getter.result()
        getter.cancel()
        self._task.result()  # raises what the application raised
        raise EOFError("the application ended without answering")

    async def chunks(self):
        """The body's chunks as they come (text), until the answer ends."""
        while True:
            message = await self._next()
            yield message.get("body", b"").decode()
            if not message.get("more_body"):
                return

    async def body(self) -> bytes:
        return "".join([chunk async for chunk in self.chunks()]).encode()

    async def disconnect(self, timeout: float) -> bool:
        """The client goes away, and the application is left to notice it by itself: whether it
        ended within `timeout` seconds."""
        self._gone.set()
        done, _ = await asyncio.wait({self._task}, timeout=timeout)
        return bool(done)

    async def close(self) -> None:
        """The client goes away."""
        self._gone.set()
        if not self._task.done():
            self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


def pending_call(path: str, *, query=None, token=None, headers=None) -> Call:
    """A request sent now, its answer not awaited yet (`await call.start()`)."""
    return Call(_scope(path, query=query, token=token, headers=headers))


async def open_call(path: str, *, query=None, token=None, headers=None) -> Call:
    return await pending_call(path, query=query, token=token, headers=headers).start()


def get(path: str, *, query=None, token=None, headers=None) -> Answer:
    """One whole answer (a stream is read until it ends)."""

    async def call():
        started = await open_call(path, query=query, token=token, headers=headers)
        try:
            return Answer(started.status, started.headers, await started.body())
        finally:
            await started.close()

    return async_to_sync(call)()


STREAM = {"Accept": "text/event-stream"}
