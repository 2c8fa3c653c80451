"""Calling the real ASGI application (config/asgi.py) with a hand-made scope, as a server would."""

import asyncio

from asgiref.sync import async_to_sync

from config.asgi import application


def asgi_request(
    method: str, path: str, query: str = "", token: str | None = None, body: bytes = b"", headers=()
) -> tuple[int, dict, bytes]:
    """(status, headers by lower-case name, body) of one request; the client stays connected."""
    sent: list[dict] = []

    async def call():
        delivered = False

        async def receive():
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()  # the client stays connected

        async def send(message):
            sent.append(message)

        scope_headers = [(b"host", b"testserver"), *headers]
        if body:
            scope_headers += [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ]
        if token is not None:
            scope_headers.append((b"authorization", f"Bearer {token}".encode()))
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": query.encode(),
            "headers": scope_headers,
            "client": ("127.0.0.1", 40000),
            "server": ("testserver", 80),
        }
        await application(scope, receive, send)

    async_to_sync(call)()
    start = sent[0]
    content = b"".join(message.get("body", b"") for message in sent[1:])
    return start["status"], {k.decode().lower(): v.decode() for k, v in start["headers"]}, content
