"""Server-Sent Events, as the API's two streams (a user's feed, a deal's log) write them."""

import orjson


def wants_stream(request) -> bool:
    """The client asked for the stream form (`Accept: text/event-stream`), as EventSource does."""
    return "text/event-stream" in request.META.get("HTTP_ACCEPT", "")


def entries(events: list[dict]) -> str:
    """Each log entry as `id: <seq>` / `event: <type>` / `data: <the entry's JSON>`."""
    return "".join(
        f"id: {event['seq']}\nevent: {event['type']}\ndata: {orjson.dumps(event).decode()}\n\n"
        for event in events
    )
