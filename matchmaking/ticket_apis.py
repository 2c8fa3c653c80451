"""Thin views of quick-match tickets and their stats (docs/matchmaking.md "Tickets")."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from games import engine
from games.view_serializers import GameOptionsInputField
from infra.api.errors import ErrorCode
from infra.api.schema import LONG_POLL_CAP, error_responses
from infra.api.serializers import StrictInputSerializer
from matchmaking import selectors, tickets
from matchmaking.models import BotLevel, TableStatus
from matchmaking.ticket_serializers import TicketOutputSerializer, TicketPollQueryInputSerializer


class TicketCreateInputSerializer(StrictInputSerializer):
    preset = serializers.ChoiceField(choices=engine.PRESETS)
    options = GameOptionsInputField(
        required=False, default=dict, help_text="Preset options (docs/rules.md §6)."
    )
    rated = serializers.BooleanField(required=False, default=True)
    bots = serializers.BooleanField(
        required=False,
        default=True,
        help_text="May be seated with bots after MATCHMAKING_BOTS_AFTER seconds.",
    )
    # No declared default: "" is no level, and a schema's default must be one of its values.
    bot_level = serializers.ChoiceField(
        choices=BotLevel.choices,
        required=False,
        help_text="How the server's bots play at the matched table (docs/bots.md): easy, normal or hard; "
        "omitted: the server's default. Only tickets asking the same level sit together.",
    )
    party = serializers.RegexField(
        r"^[A-Za-z0-9_-]{1,16}$",
        # No default: the empty code is no valid value, and a declared default must be one (absent
        # means no party: tickets.ticket_create).
        required=False,
        help_text="Friends who send the same code sit at one table (at most four; always unrated).",
    )


_TICKET_EXAMPLE = {
    "id": 41,
    "status": "matched",
    "preset": "weihai",
    "options": {},
    "rated": True,
    "bots": True,
    "bot_level": None,
    "party": "",
    "created_at": "2026-12-01T03:00:00Z",
    "table": 12,
    "game": 30,
    "seat": 3,
}
_TICKET_ID = OpenApiParameter("ticket_id", OpenApiTypes.INT, OpenApiParameter.PATH)


class TicketCreateApi(APIView):
    # A `ban` or a `queue_ban` is refused with 403 `banned` (accounts/permissions.py).
    refused_when_queue_banned = True

    @extend_schema(
        operation_id="ticket_create",
        tags=["matchmaking"],
        request=TicketCreateInputSerializer,
        responses={
            201: TicketOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.BANNED,
                ErrorCode.TICKET_EXISTS,
                ErrorCode.TABLE_FULL,
            ),
        },
        examples=[
            OpenApiExample(
                "weihai", value={"preset": "weihai", "rated": True, "bots": True}, request_only=True
            ),
            OpenApiExample(
                "queued",
                value={**_TICKET_EXAMPLE, "status": "waiting", "table": None, "game": None, "seat": None},
                response_only=True,
                status_codes=["201"],
            ),
        ],
        description=(
            "Queue for a table. One waiting ticket per user (`ticket_exists`); a party of four is full "
            "(`table_full`). Poll the ticket at least every MATCHMAKING_TICKET_TTL seconds or it expires."
        ),
    )
    def post(self, request):
        data = TicketCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        ticket = tickets.ticket_create(user=request.user, **data.validated_data)
        return Response(TicketOutputSerializer(ticket).data, status=status.HTTP_201_CREATED)


class TicketDetailApi(APIView):
    """The web role answers at once; the event server (events/) serves GET with its wait, and the
    reverse proxy routes the URL's GETs there."""

    @extend_schema(
        operation_id="ticket_detail",
        tags=["matchmaking"],
        parameters=[
            _TICKET_ID,
            OpenApiParameter(
                "wait",
                OpenApiTypes.NUMBER,
                description="Seconds to wait while the ticket is still `waiting`; clamped to 30.",
            ),
        ],
        responses={
            200: TicketOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.NOT_FOUND,
                ErrorCode.THROTTLED,
            ),
        },
        examples=[OpenApiExample("matched", value=_TICKET_EXAMPLE, response_only=True, status_codes=["200"])],
        description=(
            "The owner's read keeps a waiting ticket alive. Other users' tickets are 404 (staff may read)."
            + LONG_POLL_CAP
        ),
    )
    def get(self, request, ticket_id: int):
        query = TicketPollQueryInputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        ticket = tickets.ticket_poll(ticket_id=ticket_id, user=request.user)
        return Response(TicketOutputSerializer(ticket).data)

    @extend_schema(
        operation_id="ticket_cancel",
        tags=["matchmaking"],
        parameters=[_TICKET_ID],
        request=None,
        responses={
            200: TicketOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.NOT_FOUND,
                ErrorCode.TICKET_MATCHED,
            ),
        },
        description=(
            "Leave the queue (`cancelled`). Once matched: 409 `ticket_matched` with the seat in `extra`."
        ),
    )
    def delete(self, request, ticket_id: int):
        ticket = tickets.ticket_cancel(ticket_id=ticket_id, user=request.user)
        return Response(TicketOutputSerializer(ticket).data)


class MatchmakingStatsItemOutputSerializer(serializers.Serializer):
    preset = serializers.CharField()
    waiting = serializers.IntegerField(help_text="Tickets waiting now.")
    median_wait = serializers.FloatField(
        allow_null=True, help_text="Median seconds from queueing to a seat, over the last hour's matches."
    )


class MatchmakingStatsOutputSerializer(serializers.Serializer):
    presets = MatchmakingStatsItemOutputSerializer(many=True)


class MatchmakingStatsApi(APIView):
    @extend_schema(
        operation_id="matchmaking_stats",
        tags=["matchmaking"],
        responses={200: MatchmakingStatsOutputSerializer, **error_responses(ErrorCode.NOT_AUTHENTICATED)},
        examples=[
            OpenApiExample(
                "stats",
                value={"presets": [{"preset": "weihai", "waiting": 3, "median_wait": 8.5}]},
                response_only=True,
                status_codes=["200"],
            )
        ],
        description=(
            "Per preset: tickets waiting now and the recent median wait (null: no match in the last hour)."
        ),
    )
    def get(self, request):
        return Response({"presets": selectors.tickets_stats()})


class ActiveDealOutputSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    phase = serializers.CharField(help_text="The deal's phase, as its view says.")
    your_turn = serializers.BooleanField(help_text="Your seat is prompted now.")
    deadline = serializers.DateTimeField(allow_null=True)
    version = serializers.IntegerField(help_text="Send it as `expected_version`.")
    trustee = serializers.BooleanField()
    trustee_locked = serializers.BooleanField(help_text="On 托管 for good in this deal (docs/rules.md §5).")


class ActiveSeatOutputSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    seat = serializers.IntegerField()
    game = serializers.IntegerField(allow_null=True, help_text="The running deal; null between deals.")
    trustee = serializers.BooleanField(
        help_text="Your seat is on 托管 (between deals: the next deal deals it on 托管). Take it back "
        "with `POST games/{game}/trustee {\"on\": false}`, or by sending your action "
        "(docs/client-guide.md \"Coming back\")."
    )
    trustee_locked = serializers.BooleanField()
    deal = ActiveDealOutputSerializer(allow_null=True, help_text="The running deal; null between deals.")
    table_status = serializers.ChoiceField(choices=TableStatus.choices)
    next_deal_at = serializers.DateTimeField(
        allow_null=True, help_text="When the next deal is dealt (between deals), else null."
    )
    return_by = serializers.DateTimeField(
        allow_null=True,
        help_text="Your seat was on 托管 at a deal's end: take it back before this time, or the table "
        "dissolves (a bot takes your seat at a quick-match table with bots). Null: nothing to do.",
    )


class MeActiveOutputSerializer(serializers.Serializer):
    tables = ActiveSeatOutputSerializer(many=True)
    tickets = TicketOutputSerializer(many=True, help_text="Waiting tickets.")
    feed_last_seq = serializers.IntegerField(
        help_text="The seq of your feed's newest entry (0: none yet): pass it as `after` to "
        "`GET me/events` to follow your feed from now on (docs/client-guide.md §5)."
    )


class MeActiveApi(APIView):
    @extend_schema(
        operation_id="me_active",
        tags=["me"],
        responses={200: MeActiveOutputSerializer, **error_responses(ErrorCode.NOT_AUTHENTICATED)},
        examples=[
            OpenApiExample(
                "active",
                value={
                    "tables": [
                        {
                            "table": 12,
                            "seat": 3,
                            "game": 30,
                            "trustee": True,
                            "trustee_locked": False,
                            "deal": {
                                "game": 30,
                                "phase": "play",
                                "your_turn": False,
                                "deadline": "2026-12-01T10:00:20Z",
                                "version": 41,
                                "trustee": True,
                                "trustee_locked": False,
                            },
                            "table_status": "playing",
                            "next_deal_at": None,
                            "return_by": "2026-12-01T10:01:30Z",
                        }
                    ],
                    "tickets": [],
                    "feed_last_seq": 57,
                },
                response_only=True,
                status_codes=["200"],
            )
        ],
        description="Your seats at unfinished tables and your waiting tickets, for a restarted client.",
    )
    def get(self, request):
        active = selectors.user_active(user=request.user)
        return Response(
            {
                "tables": active["tables"],
                "tickets": TicketOutputSerializer(active["tickets"], many=True).data,
                "feed_last_seq": active["feed_last_seq"],
            }
        )
