"""The four waiting reads and what each needs: how to answer, when the answer may wait, what wakes it.

Each `answer` is what the web role's DRF view of the same URL answers (its serializer for the
query, its selector for the body), so the two roles cannot drift apart; every function here is
synchronous and runs in a worker thread (events/threads.py).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import QueryDict

from accounts import feed
from events.access import Reader
from events.streams import FollowedLog, Page
from games import selectors as game_selectors
from games.event_serializers import GameEventsQueryInputSerializer
from infra import wakeups
from infra.api.errors import ApiError
from infra.api.serializers import LongPollQueryInputSerializer
from matchmaking import selectors as matchmaking_selectors
from matchmaking import tickets
from matchmaking.models import TicketStatus
from matchmaking.ticket_serializers import TicketOutputSerializer, TicketPollQueryInputSerializer

# A deal's log ends with one of these (nothing is appended after it).
GAME_LOG_ENDINGS = frozenset({"deal_over", "void", "aborted"})


@dataclass(frozen=True)
class Query:
    after: int
    wait: float


@dataclass(frozen=True)
class Endpoint:
    """One waiting read. `object_id` is the path's id (None for the feed)."""

    route: str  # as the web role's URL pattern names it (access log and metrics label both alike)
    query: Callable[[QueryDict], Query]
    answer: Callable[[Reader, Any, Query], dict]
    # The answer needs no wait: something after `after` (a log), or no longer `waiting` (a ticket).
    ready: Callable[[dict, Query], bool]
    # From the database, without reading the answer: may the answer have changed since `after`?
    changed: Callable[[Reader, Any, Query], bool]
    channel: Callable[[Reader | None, Any], str]
    # The channel is the reader's own (known once his token is read), not the object's.
    per_reader: bool = False
    # The log as a stream (Server-Sent Events), None where the API offers no stream.
    followed: Callable[[Reader, Any], FollowedLog] | None = None


def _long_poll_query(serializer_class) -> Callable[[QueryDict], Query]:
    def query(params: QueryDict) -> Query:
        data = serializer_class(data=params)
        data.is_valid(raise_exception=True)
        return Query(after=data.validated_data["after"], wait=data.validated_data["wait"])

    return query


def _log_ready(body: dict, query: Query) -> bool:
    return body["last_seq"] > query.after


# --- A deal's log: GET games/{id}/events ------------------------------------------------------------


def _game_followed(reader: Reader, game_id: int) -> FollowedLog:
    seat: int | None = None  # set by every read, which comes before any entry is forwarded

    def read(after: int) -> Page | None:
        nonlocal seat
        try:
            game, rows = game_selectors.game_log_read(game_id=game_id, after=after)
            seat = game_selectors.game_access_seat(game=game, user=reader.user)
        except ApiError:
            return None  # the game is gone, or its table private to this reader now
        page = game_selectors.game_events_page(game=game, rows=rows, seat=seat)
        return Page(events=page["events"], last_seq=page["last_seq"])

    return FollowedLog(
        title=f"events of game {game_id}",
        channel=wakeups.channel_name(game_id),
        read=read,
        visible=lambda entry: game_selectors.event_visible_to(data=entry, seat=seat),
        private=lambda entry: entry.get("private_to") is not None,
        ends=lambda entry: entry["type"] in GAME_LOG_ENDINGS,
    )


GAME_LOG = Endpoint(
    route="api/v1/games/<id:game_id>/events",
    query=_long_poll_query(GameEventsQueryInputSerializer),
    answer=lambda reader, game_id, query: game_selectors.game_events(
        game_id=game_id, user=reader.user, after=query.after
    ),
    ready=_log_ready,
    changed=lambda reader, game_id, query: game_selectors.game_events_changed(
        game_id=game_id, after=query.after
    ),
    channel=lambda reader, game_id: wakeups.channel_name(game_id),
    followed=_game_followed,
)


# --- A table's log: GET tables/{id}/events ----------------------------------------------------------


def _table_answer(reader: Reader, table_id: int, query: Query) -> dict:
    table = matchmaking_selectors.table_get(table_id=table_id)
    return matchmaking_selectors.table_events(table=table, user=reader.user, after=query.after)


TABLE_LOG = Endpoint(
    route="api/v1/tables/<id:table_id>/events",
    query=_long_poll_query(LongPollQueryInputSerializer),
    answer=_table_answer,
    ready=_log_ready,
    changed=lambda reader, table_id, query: matchmaking_selectors.table_events_changed(
        table_id=table_id, after=query.after
    ),
    channel=lambda reader, table_id: wakeups.table_channel_name(table_id),
)


# --- The reader's feed: GET me/events ---------------------------------------------------------------


def _feed_followed(reader: Reader, _: None) -> FollowedLog:
    user_id = reader.user.pk

    def read(after: int) -> Page:
        page = feed.feed_read(user_id=user_id, after=after, limit=feed.FEED_PAGE)
        more = len(page["events"]) == feed.FEED_PAGE
        return Page(events=page["events"], last_seq=page["last_seq"], more=more)

    # Every entry of a user's feed is his own to see, and a feed never ends.
    return FollowedLog(title=f"feed of user {user_id}", channel=wakeups.user_channel_name(user_id), read=read)


FEED = Endpoint(
    route="api/v1/me/events",
    query=_long_poll_query(LongPollQueryInputSerializer),
    answer=lambda reader, _, query: feed.feed_read(user_id=reader.user.pk, after=query.after),
    ready=_log_ready,
    changed=lambda reader, _, query: feed.feed_changed(user_id=reader.user.pk, after=query.after),
    channel=lambda reader, _: wakeups.user_channel_name(reader.user.pk),
    per_reader=True,
    followed=_feed_followed,
)


# --- A quick-match ticket: GET matchmaking/tickets/{id}?wait= ---------------------------------------


def _ticket_query(params: QueryDict) -> Query:
    data = TicketPollQueryInputSerializer(data=params)
    data.is_valid(raise_exception=True)
    return Query(after=0, wait=data.validated_data.get("wait") or 0)


TICKET = Endpoint(
    route="api/v1/matchmaking/tickets/<id:ticket_id>",
    query=_ticket_query,
    answer=lambda reader, ticket_id, query: TicketOutputSerializer(
        tickets.ticket_poll(ticket_id=ticket_id, user=reader.user)
    ).data,
    # A ticket is followed by its status: it waits while it is still `waiting`.
    ready=lambda body, query: body["status"] != TicketStatus.WAITING,
    changed=lambda reader, ticket_id, query: matchmaking_selectors.ticket_is_settled(ticket_id=ticket_id),
    channel=lambda reader, ticket_id: wakeups.ticket_channel_name(ticket_id),
)
