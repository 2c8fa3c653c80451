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
