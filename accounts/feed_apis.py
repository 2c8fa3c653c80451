"""`GET me/events`: the caller's feed (docs/matchmaking.md "Your feed"), as a long-poll or as Server-Sent
Events.

One stream per client for everything addressed to the user. The SSE form sends each entry as
`id: <seq>` / `event: <type>` / `data: <json>`, a comment line every EVENTS_SSE_KEEPALIVE seconds, and
ends after EVENTS_SSE_MAX_SECONDS (clients reconnect with `Last-Event-ID`, as EventSource does), or
when the caller's token no longer reads it (checked as often); events/streams.py follows it.
"""

from drf_spectacular.utils import OpenApiExample, PolymorphicProxySerializer, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import feed
from accounts.models import SanctionKind
from games.view_serializers import GameActionOutputSerializer
from infra.api.errors import ErrorCode
from infra.api.schema import (
    LAST_EVENT_ID_PARAMETER,
    LONG_POLL_CAP,
    LONG_POLL_PARAMETERS,
    STREAM_CAP,
    error_responses,
    event_stream,
    type_field,
)
from infra.api.serializers import LongPollQueryInputSerializer

FEED_EVENT_TYPES = (
    "ticket_matched",
    "deal_started",
    "your_turn",
    "sanction",
    "tournament_round",
    "tournament_finished",
)


class TicketMatchedEventOutputSerializer(serializers.Serializer):
    type = type_field("ticket_matched")
    seq = serializers.IntegerField()
    ticket = serializers.IntegerField()
    table = serializers.IntegerField()
    game = serializers.IntegerField()
    seat = serializers.IntegerField()

    class Meta:
        ref_name = "TicketMatchedEvent"


class FeedDealStartedEventOutputSerializer(serializers.Serializer):
    type = type_field("deal_started")
    seq = serializers.IntegerField()
    table = serializers.IntegerField()
    game = serializers.IntegerField()
    seat = serializers.IntegerField()

    class Meta:
        ref_name = "FeedDealStartedEvent"


class YourTurnEventOutputSerializer(serializers.Serializer):
    type = type_field("your_turn")
    seq = serializers.IntegerField()
    game = serializers.IntegerField()
    version = serializers.IntegerField(help_text="The version that prompts you.")
    deadline = serializers.DateTimeField(allow_null=True)
    legal_actions = GameActionOutputSerializer(
        many=True,
        required=False,
        help_text=(
            "What you may do at `version`, as your view lists it: post one with `expected_version` = "
            "`version` without reading the view first. In a window, other seats' answers raise the "
            "version without prompting you again, and your entry's version stays current until the "
            "window closes (API 1.3.0). A `409 stale_version` means the prompt has passed (say, the "
            "timer answered for you): read the view. Absent from entries written before API 1.2.0."
        ),
    )

    class Meta:
        ref_name = "YourTurnEvent"


class SanctionEventOutputSerializer(serializers.Serializer):
    type = type_field("sanction")
    seq = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=SanctionKind.choices)
    expires_at = serializers.DateTimeField(allow_null=True)

    class Meta:
        ref_name = "SanctionEvent"


class TournamentRoundEventOutputSerializer(serializers.Serializer):
    """docs/tournaments.md: a round seated you (before the first deal's own entries)."""

    type = type_field("tournament_round")
    seq = serializers.IntegerField()
    tournament = serializers.IntegerField()
    round = serializers.IntegerField()
    table = serializers.IntegerField()
    seat = serializers.IntegerField()
    game = serializers.IntegerField()

    class Meta:
        ref_name = "TournamentRoundEvent"


class TournamentFinishedEventOutputSerializer(serializers.Serializer):
    type = type_field("tournament_finished")
    seq = serializers.IntegerField()
    tournament = serializers.IntegerField()
    rank = serializers.IntegerField(allow_null=True, help_text="Null: withdrawn or sent off (not ranked).")
    matchpoints = serializers.IntegerField()
    score = serializers.IntegerField()

    class Meta:
        ref_name = "TournamentFinishedEvent"


FEED_EVENTS = {
    "ticket_matched": TicketMatchedEventOutputSerializer,
    "deal_started": FeedDealStartedEventOutputSerializer,
    "your_turn": YourTurnEventOutputSerializer,
    "sanction": SanctionEventOutputSerializer,
    "tournament_round": TournamentRoundEventOutputSerializer,
    "tournament_finished": TournamentFinishedEventOutputSerializer,
}


class FeedOutputSerializer(serializers.Serializer):
    events = PolymorphicProxySerializer(
        component_name="FeedEvent", serializers=FEED_EVENTS, resource_type_field_name="type", many=True
    )
    last_seq = serializers.IntegerField(help_text="Pass it back as `after`.")


class MeEventsApi(APIView):
    """The web role answers at once; the event server (events/) serves the same URL with its wait
    and its stream, and the reverse proxy routes the URL there."""

    @extend_schema(
        operation_id="me_events",
        extensions=event_stream("FeedEvent"),
        tags=["auth"],
        parameters=[
            *LONG_POLL_PARAMETERS,
            LAST_EVENT_ID_PARAMETER,
        ],
        description=(
            "Everything addressed to you, in order: `ticket_matched`, `deal_started`, `your_turn`, "
            "`sanction`, `tournament_round`, `tournament_finished`. With `Accept: text/event-stream` "
            "the same entries come as Server-Sent Events "
            "(`id` = seq, `event` = type, `data` = the entry; reconnect with `Last-Event-ID` or "
            "`after`); the stream ends after EVENTS_SSE_MAX_SECONDS or when you may no longer read "
            "the feed (checked every EVENTS_SSE_CHECK_SECONDS). `after=0` starts from the oldest entry "
            "kept (the newest 500 are); to follow from now, pass `feed_last_seq` from `GET me/active`. "
            "A cursor past the newest entry is `409 feed_cursor_ahead`, one before entries no longer kept "
            "`410 feed_cursor_expired` (read `GET me/active`, then follow from its `feed_last_seq`); "
            "both give the feed's `last_seq` in `extra`." + LONG_POLL_CAP + STREAM_CAP
        ),
        responses={
            200: FeedOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.THROTTLED,
                ErrorCode.FEED_CURSOR_AHEAD,
                ErrorCode.FEED_CURSOR_EXPIRED,
            ),
        },
        examples=[
            OpenApiExample(
                "your turn",
                value={
                    "events": [
                        {
                            "type": "your_turn",
                            "game": 12,
                            "version": 7,
                            "deadline": "2026-12-01T10:00:20Z",
                            "legal_actions": [
                                {"type": "play", "cards": ["9D"], "card": None},
                                {"type": "pass", "cards": [], "card": None},
                            ],
                            "seq": 31,
                        }
                    ],
                    "last_seq": 31,
                },
                response_only=True,
                status_codes=["200"],
            )
        ],
    )
    def get(self, request):
        query = LongPollQueryInputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        return Response(feed.feed_read(user_id=request.user.pk, after=query.validated_data["after"]))
