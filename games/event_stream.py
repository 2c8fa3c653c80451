"""`GET games/{id}/events` as Server-Sent Events (`Accept: text/event-stream`): the deal's log.

A client that follows a deal by long-polling sends a new request after every event: its answer, a
new request's parsing, token lookup and read, and a new wait, about ten requests per move across a
table (docs/scaling.md). Over one stream the server only writes what is new. Each entry is
`id: <seq>` / `event: <type>` / `data: <the event as in the JSON log>`; a reconnecting client sends
`Last-Event-ID` (as EventSource does) or `after`, and gets nothing twice.

How a stream starts, follows and ends is config/api/sse.py's. What is the log's own: a read is
games.selectors.game_events (its redaction and access check); an entry a wake-up carries is shown
under the same rule (`event_visible_to` for the viewer's seat, which a deal never changes, as it
never changes whether its table is private); the stream ends after the deal's last event
(`deal_over`, `void` or `aborted`).
"""

from config import wakeups
from config.api.errors import ApiError
from config.api.sse import FollowedLog, Page
from games import selectors

ENDING_EVENTS = frozenset({"deal_over", "void", "aborted"})


def followed_log(*, game_id: int, user) -> FollowedLog:
    seat: int | None = None  # set by the first read, which comes before any entry is pushed

    def read(after: int) -> Page | None:
        nonlocal seat
        try:
            game, rows = selectors.game_log_read(game_id=game_id, after=after)
            seat = selectors.game_access_seat(game=game, user=user)
        except ApiError:
            return None  # the game is gone, or its table private to this viewer
        page = selectors.game_events_page(game=game, rows=rows, seat=seat)
        return Page(events=page["events"], last_seq=page["last_seq"])

    return FollowedLog(
        title=f"events of game {game_id}",
        channel=wakeups.channel_name(game_id),
        read=read,
        visible=lambda entry: selectors.event_visible_to(data=entry, seat=seat),
        ends=lambda entry: entry["type"] in ENDING_EVENTS,
    )
