"""Thin views of the table API (docs/client-guide.md "Tables")."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.throttles import UserScopedRateThrottle
from games import engine
from games.models import GameStatus
from games.view_serializers import GameOptionsInputField, GameOptionsOutputSerializer
from infra.api.errors import ApiError, ErrorCode
from infra.api.pagination import cursor_page
from infra.api.schema import error_responses
from infra.api.serializers import StrictInputSerializer, refuse_body_fields
from matchmaking import selectors, services
from matchmaking.models import (
    DEFAULT_DEAL_PAUSE_SECONDS,
    DEFAULT_PLAY_SECONDS,
    DEFAULT_PROMPT_SECONDS,
    DEFAULT_RETURN_SECONDS,
    BotLevel,
    PenaltyReason,
    TableClosedReason,
    TableStatus,
)
from matchmaking.moderation import services as moderation_services

PRESETS = engine.PRESETS


class TableSettingsInputSerializer(StrictInputSerializer):
    play_seconds = serializers.IntegerField(
        min_value=1, max_value=600, required=False, default=DEFAULT_PLAY_SECONDS
    )
    prompt_seconds = serializers.IntegerField(
        min_value=1, max_value=600, required=False, default=DEFAULT_PROMPT_SECONDS
    )
    deal_pause_seconds = serializers.IntegerField(
        min_value=0,
        max_value=120,
        required=False,
        default=DEFAULT_DEAL_PAUSE_SECONDS,
        help_text="Seconds between a deal's end and the next deal, to read the result (0: at once).",
    )
    return_seconds = serializers.IntegerField(
        min_value=0,
        max_value=3600,
        required=False,
        default=DEFAULT_RETURN_SECONDS,
        help_text="Seconds a seat found on 托管 at a deal's end has to come back before the table "
        "dissolves (docs/rules.md §5 D; the 联众 presets dissolve at once, as their source says).",
    )


class TableSetupInputSerializer(StrictInputSerializer):
    seed = serializers.IntegerField(min_value=0, required=False)
    hands = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField(max_length=4), max_length=64),
        min_length=5,
        max_length=5,
        required=False,
    )
    candidate = serializers.IntegerField(min_value=0, max_value=4, required=False)
    aside = serializers.ListField(child=serializers.CharField(max_length=4), max_length=8, required=False)


class TableCreateInputSerializer(StrictInputSerializer):
    preset = serializers.ChoiceField(choices=PRESETS)
    options = GameOptionsInputField(
        required=False, default=dict, help_text="Preset options (docs/rules.md §6)."
    )
    settings = TableSettingsInputSerializer(required=False)
    deals = serializers.IntegerField(
        min_value=0,
        max_value=1000,
        required=False,
        allow_null=True,
        help_text="Deals to play; default: the preset's match length (campus 6), else 0 (until one leaves).",
    )
    private = serializers.BooleanField(required=False, default=False)
    bots_replace_leavers = serializers.BooleanField(
        required=False,
        default=False,
        help_text="A player who leaves mid-match is replaced by a bot at the next deal; the table plays on.",
    )
    # No declared default: "" is no level, and a schema's default must be one of its values.
    bot_level = serializers.ChoiceField(
        choices=BotLevel.choices,
        required=False,
        help_text="How the server's bots play at this table (docs/bots.md): easy, normal or hard; "
        "omitted: the server's default.",
    )
    setups = TableSetupInputSerializer(
        many=True, required=False, help_text="Staff only: fixed deals, used for successive deals."
    )


class TableJoinInputSerializer(StrictInputSerializer):
    code = serializers.CharField(max_length=16, required=False, help_text="Required for a private table.")
    seat = serializers.IntegerField(min_value=0, max_value=4, required=False, allow_null=True)


class TableEmptyInputSerializer(StrictInputSerializer):
    pass


class TableSeatUserOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    is_bot = serializers.BooleanField()


class TableSeatOutputSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    user = TableSeatUserOutputSerializer(allow_null=True)
    trustee = serializers.BooleanField()
    return_by = serializers.DateTimeField(
        allow_null=True,
        help_text="The seat was on 托管 at a deal's end: its player has until then to take it back.",
    )


class TableSettingsOutputSerializer(serializers.Serializer):
    play_seconds = serializers.IntegerField()
    prompt_seconds = serializers.IntegerField()
    deal_pause_seconds = serializers.IntegerField()
    return_seconds = serializers.IntegerField()


class TableGameOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=GameStatus.choices)
    scores = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    unscored = serializers.BooleanField(help_text="All five on trustee at the end: not added to `scores`.")


class TableDetailOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    code = serializers.CharField(
        allow_null=True, help_text="Shown to members, and to everyone for a public table."
    )
    preset = serializers.CharField()
    options = GameOptionsOutputSerializer(help_text="The preset's options (docs/rules.md §6).")
    settings = TableSettingsOutputSerializer()
    deals = serializers.IntegerField()
    deals_done = serializers.IntegerField()
    private = serializers.BooleanField()
    bots_replace_leavers = serializers.BooleanField()
    bot_level = serializers.ChoiceField(
        choices=BotLevel.choices,
        allow_null=True,
        help_text="How the server's bots play here (null: the server's default).",
    )
    status = serializers.ChoiceField(choices=TableStatus.choices)
    closed_reason = serializers.ChoiceField(
        choices=TableClosedReason.choices, allow_null=True, help_text="Why the table closed (null: open)."
    )
    creator = serializers.IntegerField()
    seats = TableSeatOutputSerializer(many=True)
    scores = serializers.ListField(child=serializers.IntegerField(), help_text="Running totals by seat.")
    games = TableGameOutputSerializer(many=True)
    current_game = serializers.IntegerField(allow_null=True)
    next_deal_at = serializers.DateTimeField(
        allow_null=True, help_text="Between deals: when the next deal is dealt (the table's pause)."
    )


_TABLE_EXAMPLE = {
    "id": 3,
    "code": "9f3c2a1b",
    "preset": "weihai",
    "options": {},
    "settings": {"play_seconds": 20, "prompt_seconds": 15, "deal_pause_seconds": 8, "return_seconds": 90},
    "deals": 0,
    "deals_done": 0,
    "private": False,
    "bots_replace_leavers": False,
    "bot_level": None,
    "status": "waiting",
    "closed_reason": None,
    "creator": 7,
    "seats": [
        {
            "seat": 0,
            "user": {"id": 7, "username": "lihua", "is_bot": False},
            "trustee": False,
            "return_by": None,
        }
    ]
    + [{"seat": s, "user": None, "trustee": False, "return_by": None} for s in range(1, 5)],
    "scores": [0, 0, 0, 0, 0],
    "games": [],
    "current_game": None,
    "next_deal_at": None,
}
_TABLE_ID = OpenApiParameter("table_id", OpenApiTypes.INT, OpenApiParameter.PATH)


class TableCreateThrottle(UserScopedRateThrottle):
    """`POST tables` requests per user (TABLES_THROTTLE_RATE): each table is a row and a lobby entry."""

    scope = "tables"


class TableCreateApi(APIView):
    throttle_classes = [TableCreateThrottle]

    def get_throttles(self):
        # Creating is throttled; the lobby's GET (TableCollectionApi) is not.
        return super().get_throttles() if self.request.method == "POST" else []

    @extend_schema(
        operation_id="table_create",
        tags=["tables"],
        request=TableCreateInputSerializer,
        responses={
            201: TableDetailOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.PERMISSION_DENIED,
                ErrorCode.TOO_MANY_OPEN_TABLES,
                ErrorCode.THROTTLED,
            ),
        },
        examples=[
            OpenApiExample(
                "weihai",
                value={
                    "preset": "weihai",
                    "settings": {
                        "play_seconds": 20,
                        "prompt_seconds": 15,
                        "deal_pause_seconds": 8,
                        "return_seconds": 90,
                    },
                    "private": False,
                },
                request_only=True,
            ),
            OpenApiExample("created", value=_TABLE_EXAMPLE, response_only=True, status_codes=["201"]),
        ],
        description=(
            "The creator is not seated by creating; join to sit down. A player may send "
            "TABLES_THROTTLE_RATE of these requests (default 10 an hour; then `429 throttled` with "
            "Retry-After) and have TABLES_OPEN_PER_USER (default 3) of his tables waiting for players "
            "at once (then `409 too_many_open_tables`); staff are not capped."
        ),
    )
    def post(self, request):
        data = TableCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        table_settings = fields.pop("settings", None) or {
            "play_seconds": DEFAULT_PLAY_SECONDS,
            "prompt_seconds": DEFAULT_PROMPT_SECONDS,
            "deal_pause_seconds": DEFAULT_DEAL_PAUSE_SECONDS,
            "return_seconds": DEFAULT_RETURN_SECONDS,
        }
        table = services.table_create_in_lobby(creator=request.user, **fields, **table_settings)
        return Response(
            selectors.table_detail(table=table, user=request.user), status=status.HTTP_201_CREATED
        )


class TableDetailApi(APIView):
    @extend_schema(
        operation_id="table_detail",
        tags=["tables"],
        parameters=[_TABLE_ID],
        responses={
            200: TableDetailOutputSerializer,
            **error_responses(ErrorCode.NOT_AUTHENTICATED, ErrorCode.PERMISSION_DENIED, ErrorCode.NOT_FOUND),
        },
        examples=[OpenApiExample("table", value=_TABLE_EXAMPLE, response_only=True, status_codes=["200"])],
    )
    def get(self, request, table_id: int):
        table = selectors.table_get(table_id=table_id)
        return Response(selectors.table_detail(table=table, user=request.user))


class TableJoinApi(APIView):
    refused_when_queue_banned = True

    @extend_schema(
        operation_id="table_join",
        tags=["tables"],
        parameters=[_TABLE_ID],
        request=TableJoinInputSerializer,
        responses={
            200: TableDetailOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.PERMISSION_DENIED,
                ErrorCode.NOT_FOUND,
                ErrorCode.SEAT_TAKEN,
                ErrorCode.TABLE_FULL,
                ErrorCode.TABLE_CLOSED,
            ),
        },
        examples=[
            OpenApiExample("join", value={"code": "9f3c2a1b", "seat": 2}, request_only=True),
            OpenApiExample("joined", value=_TABLE_EXAMPLE, response_only=True, status_codes=["200"]),
        ],
        description="Sit down (the lowest free seat unless `seat` is given); the fifth starts the deal.",
    )
    def post(self, request, table_id: int):
        data = TableJoinInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        table = services.table_join(table_id=table_id, user=request.user, **data.validated_data)
        return Response(selectors.table_detail(table=table, user=request.user))


class TableLeaveApi(APIView):
    @extend_schema(
        operation_id="table_leave",
        tags=["tables"],
        parameters=[_TABLE_ID],
        request=None,
        responses={
            200: TableDetailOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.PERMISSION_DENIED,
                ErrorCode.NOT_FOUND,
            ),
        },
        examples=[OpenApiExample("left", value=_TABLE_EXAMPLE, response_only=True, status_codes=["200"])],
        description="Leaving a running deal costs 40 points; the seat plays on in trustee until it ends.",
    )
    def post(self, request, table_id: int):
        refuse_body_fields(request)
        table = services.table_leave(table_id=table_id, user=request.user)
        return Response(selectors.table_detail(table=table, user=request.user, was_member=True))


class TableSeatRemoveApi(APIView):
    @extend_schema(
        operation_id="table_seat_remove",
        tags=["tables"],
        parameters=[_TABLE_ID, OpenApiParameter("seat", OpenApiTypes.INT, OpenApiParameter.PATH)],
        request=None,
        responses={
            200: TableDetailOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.PERMISSION_DENIED,
                ErrorCode.NOT_FOUND,
            ),
        },
        description=(
            "Moderators only (staff with the `matchmaking.remove_player` right, as in the admin; "
            "docs/moderation.md): remove the player of a seat. During a running deal this costs him 40 "
            "points (a `removed` penalty in his history) and the seat plays on in trustee "
            "(docs/rules.md §5)."
        ),
    )
    def post(self, request, table_id: int, seat: int):
        refuse_body_fields(request)
        user = request.user
        # The same right as the admin's action: an API token has no more power than the admin session.
        if not (user.is_staff and user.has_perm("matchmaking.remove_player")):
            raise ApiError(ErrorCode.PERMISSION_DENIED, "Staff only: this needs moderator rights.")
        table = moderation_services.player_remove(
            table_id=table_id,
            seat=seat,
            moderator=request.user,
            reason="Removed through the API.",
            source="api",
        )
        return Response(selectors.table_detail(table=table, user=request.user))


class PenaltyOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField(source="table_id")
    game = serializers.IntegerField(source="game_id", allow_null=True)
    seat = serializers.IntegerField()
    points = serializers.IntegerField(help_text="Points taken off the table's score sheet.")
    reason = serializers.ChoiceField(
        choices=PenaltyReason.choices,
        help_text="`left`: left a running deal; `removed`: by a moderator; `foul`: campus foul; "
        "`collusion`: laowang 串牌, served by a discard before the next deal.",
    )
    served_in = serializers.IntegerField(
        source="served_in_id",
        allow_null=True,
        help_text="`collusion`: the deal that began with his discard; null until it is dealt.",
    )
    created_at = serializers.DateTimeField()


class UserHistoryOutputSerializer(serializers.Serializer):
    user = serializers.IntegerField()
    penalties = PenaltyOutputSerializer(many=True, help_text="Newest first.")


class UserHistoryApi(APIView):
    @extend_schema(
        operation_id="user_history",
        tags=["users"],
        parameters=[OpenApiParameter("user_id", OpenApiTypes.INT, OpenApiParameter.PATH)],
        responses={
            200: UserHistoryOutputSerializer,
            **error_responses(ErrorCode.NOT_AUTHENTICATED, ErrorCode.PERMISSION_DENIED, ErrorCode.NOT_FOUND),
        },
        examples=[
            OpenApiExample(
                "history",
                value={
                    "user": 7,
                    "penalties": [
                        {
                            "id": 1,
                            "table": 3,
                            "game": 12,
                            "seat": 2,
                            "points": 40,
                            "reason": "left",
                            "served_in": None,
                            "created_at": "2026-11-30T03:00:20Z",
                        }
                    ],
                },
                response_only=True,
                status_codes=["200"],
            )
        ],
        description="A player's penalties (docs/rules.md §5): visible to the player and to staff.",
    )
    def get(self, request, user_id: int):
        penalties = selectors.user_penalties(user_id=user_id, viewer=request.user)
        return Response({"user": user_id, "penalties": PenaltyOutputSerializer(penalties, many=True).data})


# --- The lobby (docs/matchmaking.md)
# ---------------------------------------------------------------------------


class TableListQueryInputSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=TableStatus.choices, required=False, default=TableStatus.WAITING)
    preset = serializers.ChoiceField(
        choices=PRESETS, required=False, allow_blank=True, help_text="Empty or absent: every preset."
    )
    cursor = serializers.CharField(required=False, help_text="The `next` of the previous page.")
    matched = serializers.BooleanField(
        required=False,
        default=False,
        help_text="`true`: the tables the matchmaker filled (quick matches: full from the start, to "
        "watch), in place of the tables players created.",
    )


class TableListOutputSerializer(serializers.Serializer):
    results = TableDetailOutputSerializer(many=True)
    next = serializers.CharField(
        allow_null=True, help_text="Pass as `cursor` for the next page; null: no more."
    )


class TableCollectionApi(TableCreateApi):
    """`tables`: POST creates a table (TableCreateApi), GET lists the lobby."""

    @extend_schema(
        operation_id="table_list",
        tags=["tables"],
        parameters=[TableListQueryInputSerializer],
        responses={
            200: TableListOutputSerializer,
            **error_responses(ErrorCode.INVALID_REQUEST, ErrorCode.NOT_AUTHENTICATED),
        },
        examples=[
            OpenApiExample(
                "lobby",
                value={"results": [_TABLE_EXAMPLE], "next": "cD0yMDI2LTEyLTAx"},
                response_only=True,
                status_codes=["200"],
            )
        ],
        description=(
            "Public tables, newest first, 20 a page (private tables are never listed). "
            "`status` defaults to `waiting`. The tables players created; with `matched=true` the "
            "tables the matchmaker filled instead (`status=playing&matched=true`: quick matches to watch)."
        ),
    )
    def get(self, request):
        query = TableListQueryInputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        tables = selectors.tables_lobby(
            status=query.validated_data["status"],
            preset=query.validated_data.get("preset") or None,
            matched=query.validated_data["matched"],
        )
        # Newest first; a cursor stays valid while tables are created ahead of it (no offset drift).
        page, next_cursor = cursor_page(tables, request, ordering=("-created_at", "-id"))
        return Response({"results": selectors.tables_lobby_rows(tables=page), "next": next_cursor})
