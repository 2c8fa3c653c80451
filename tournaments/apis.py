"""Thin views of the tournament API (docs/tournaments.md, docs/client-guide.md "Tournaments")."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from games import engine
from infra.api.errors import ApiError, ErrorCode
from infra.api.pagination import cursor_page
from infra.api.schema import error_responses
from infra.api.serializers import StrictInputSerializer, refuse_body_fields
from matchmaking.models import TableStatus
from tournaments import selectors, services
from tournaments.models import CancelledReason, RoundStatus, TournamentFormat, TournamentStatus

_TOURNAMENT_ID = OpenApiParameter("tournament_id", OpenApiTypes.INT, OpenApiParameter.PATH)


class TournamentCreateInputSerializer(StrictInputSerializer):
    name = serializers.CharField(max_length=80)
    preset = serializers.ChoiceField(choices=engine.PRESETS)
    options = serializers.DictField(
        required=False, default=dict, help_text="Preset options (docs/rules.md §6)."
    )
    format = serializers.ChoiceField(choices=TournamentFormat.choices)
    duplicate = serializers.BooleanField(
        required=False, default=False, help_text="Every table of a round plays the same boards."
    )
    rounds = serializers.IntegerField(min_value=1, max_value=20)
    deals_per_round = serializers.IntegerField(min_value=1, max_value=20)
    starts_at = serializers.DateTimeField(
        required=False, allow_null=True, default=None, help_text="Started by the server then; null: by staff."
    )
    max_players = serializers.IntegerField(min_value=2, max_value=5000)
    bots_fill = serializers.BooleanField(
        required=False,
        default=True,
        help_text="Bots fill the last tables, at most three a table; false: extra players sit a round out.",
    )
    rated = serializers.BooleanField(required=False, default=True)


class TournamentOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    preset = serializers.CharField()
    options = serializers.DictField()
    format = serializers.ChoiceField(choices=TournamentFormat.choices)
    duplicate = serializers.BooleanField()
    rounds = serializers.IntegerField()
    deals_per_round = serializers.IntegerField()
    starts_at = serializers.DateTimeField(allow_null=True)
    max_players = serializers.IntegerField()
    bots_fill = serializers.BooleanField()
    rated = serializers.BooleanField()
    status = serializers.ChoiceField(choices=TournamentStatus.choices)
    cancelled_reason = serializers.ChoiceField(choices=CancelledReason.choices, allow_blank=True)
    current_round = serializers.IntegerField(help_text="0 before the start.")
    players = serializers.IntegerField(help_text="Players entered.")
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)

    class Meta:
        ref_name = "Tournament"


class TournamentDetailOutputSerializer(TournamentOutputSerializer):
    entered = serializers.BooleanField(help_text="The caller is entered.")

    class Meta:
        ref_name = "TournamentDetail"


class TournamentListQueryInputSerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=TournamentStatus.choices, required=False, help_text="Absent: every status."
    )
    cursor = serializers.CharField(required=False, help_text="The `next` of the previous page.")


class TournamentListOutputSerializer(serializers.Serializer):
    results = TournamentOutputSerializer(many=True)
    next = serializers.CharField(allow_null=True)


class StandingOutputSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    user = serializers.IntegerField()
    username = serializers.CharField()
    matchpoints = serializers.IntegerField(help_text="Duplicate only; 0 otherwise.")
    score = serializers.IntegerField(help_text="Total deal score, less penalties.")
    rating = serializers.FloatField(help_text="The player's ordinal in the preset (the last tie-break).")


class StandingsOutputSerializer(serializers.Serializer):
    tournament = serializers.IntegerField()
    status = serializers.ChoiceField(choices=TournamentStatus.choices)
    rounds_counted = serializers.IntegerField(
        help_text="Finished rounds; a round still played is not counted."
    )
    results = StandingOutputSerializer(many=True)


class RoundSeatOutputSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    user = serializers.IntegerField()
    username = serializers.CharField(allow_null=True)
    bot = serializers.BooleanField()


class RoundTableOutputSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    table = serializers.IntegerField()
    status = serializers.ChoiceField(choices=TableStatus.choices)
    seats = RoundSeatOutputSerializer(many=True)


class BoardResultOutputSerializer(serializers.Serializer):
    table = serializers.IntegerField(help_text="The table's number in the round.")
    game = serializers.IntegerField(allow_null=True, help_text="Null: never dealt there (scores 0).")
    scores = serializers.ListField(child=serializers.IntegerField(), help_text="By seat; 0 when void.")


class BoardOutputSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="From 0 (the deal's number at each table).")
    results = BoardResultOutputSerializer(
        many=True, allow_null=True, help_text="Null while any table of the round still plays this board."
    )


class RoundOutputSerializer(serializers.Serializer):
    tournament = serializers.IntegerField()
    number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=RoundStatus.choices)
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    seeds = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        help_text="Duplicate: null until the round is over.",
    )
    tables = RoundTableOutputSerializer(many=True)
    boards = BoardOutputSerializer(many=True, help_text="Duplicate only (empty otherwise).")


_EXAMPLE = {
    "id": 3,
    "name": "保皇比赛 December",
    "preset": "campus",
    "options": {},
    "format": "swiss",
    "duplicate": True,
    "rounds": 2,
    "deals_per_round": 2,
    "starts_at": "2026-12-20T12:00:00Z",
    "max_players": 60,
    "bots_fill": True,
    "rated": True,
    "status": "registering",
    "cancelled_reason": "",
    "current_round": 0,
    "players": 7,
    "created_at": "2026-12-06T09:00:00Z",
    "started_at": None,
    "finished_at": None,
}


def _staff_only(request) -> None:
    if not request.user.is_staff:
        raise ApiError(ErrorCode.PERMISSION_DENIED, "Staff only.")


class TournamentCollectionApi(APIView):
    @extend_schema(
        operation_id="tournament_list",
        summary="List tournaments",
        tags=["tournaments"],
        parameters=[TournamentListQueryInputSerializer],
        responses={
            200: TournamentListOutputSerializer,
            **error_responses(ErrorCode.INVALID_REQUEST, ErrorCode.NOT_AUTHENTICATED),
        },
        description="Tournaments, newest first, 20 a page; `status` filters.",
    )
    def get(self, request):
        query = TournamentListQueryInputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        tournaments = selectors.tournaments_list(status=query.validated_data.get("status"))
        page, next_cursor = cursor_page(tournaments, request, ordering=("-created_at", "-id"))
        return Response({"results": TournamentOutputSerializer(page, many=True).data, "next": next_cursor})

    @extend_schema(
        operation_id="tournament_create",
        summary="Create a tournament (staff)",
        tags=["tournaments"],
        request=TournamentCreateInputSerializer,
        responses={
            201: TournamentDetailOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST, ErrorCode.NOT_AUTHENTICATED, ErrorCode.PERMISSION_DENIED
            ),
        },
        examples=[
            OpenApiExample(
                "created", value={**_EXAMPLE, "entered": False}, response_only=True, status_codes=["201"]
            )
        ],
        description="Staff only. Players enter with `join` until the start (docs/tournaments.md).",
    )
    def post(self, request):
        _staff_only(request)
        data = TournamentCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        tournament = services.tournament_create(creator=request.user, **data.validated_data)
        return Response(
            selectors.tournament_detail(tournament=tournament, user=request.user),
            status=status.HTTP_201_CREATED,
        )


class TournamentDetailApi(APIView):
    @extend_schema(
        operation_id="tournament_detail",
        summary="Read a tournament",
        tags=["tournaments"],
        parameters=[_TOURNAMENT_ID],
        responses={
            200: TournamentDetailOutputSerializer,
            **error_responses(ErrorCode.NOT_AUTHENTICATED, ErrorCode.NOT_FOUND),
        },
        examples=[
            OpenApiExample(
                "tournament", value={**_EXAMPLE, "entered": True}, response_only=True, status_codes=["200"]
            )
        ],
    )
    def get(self, request, tournament_id: int):
        tournament = selectors.tournament_get(tournament_id=tournament_id)
        return Response(selectors.tournament_detail(tournament=tournament, user=request.user))


_ACTION_ERRORS = error_responses(
    ErrorCode.INVALID_REQUEST,
    ErrorCode.NOT_AUTHENTICATED,
    ErrorCode.PERMISSION_DENIED,
    ErrorCode.BANNED,
    ErrorCode.NOT_FOUND,
    ErrorCode.TOURNAMENT_STARTED,
    ErrorCode.TOURNAMENT_FULL,
    ErrorCode.TOURNAMENT_CLOSED,
)


def _action_schema(operation_id: str, summary: str, description: str):
    """The schema of a bodiless `POST tournaments/{id}/<action>` answering the tournament."""
    return extend_schema(
        operation_id=operation_id,
        summary=summary,
        tags=["tournaments"],
        parameters=[_TOURNAMENT_ID],
        request=None,
        responses={200: TournamentDetailOutputSerializer, **_ACTION_ERRORS},
        description=description,
    )


class _TournamentActionApi(APIView):
    """A bodiless action on one tournament, answered with the tournament as the caller sees it."""

    def act(self, request, tournament_id: int):
        raise NotImplementedError

    def post(self, request, tournament_id: int):
        refuse_body_fields(request)
        tournament = self.act(request, tournament_id)
        return Response(selectors.tournament_detail(tournament=tournament, user=request.user))


class TournamentJoinApi(_TournamentActionApi):
    refused_when_queue_banned = True

    @_action_schema(
        "tournament_join",
        "Enter a tournament",
        "Enter before the start (`409 tournament_started` after, `409 tournament_full` at "
        "`max_players`, `409 tournament_closed` once finished or cancelled; a user under a ban or "
        "a queue ban: `403 banned`). Entering again answers as the first time.",
    )
    def post(self, request, tournament_id: int):
        return super().post(request, tournament_id)

    def act(self, request, tournament_id: int):
        return services.tournament_join(tournament_id=tournament_id, user=request.user)


class TournamentLeaveApi(_TournamentActionApi):
    @_action_schema(
        "tournament_leave",
        "Leave or withdraw from a tournament",
        "Before the start the entry is removed. After it the player withdraws: he is not seated "
        "again nor ranked, and a table he sits at plays on with his seat on 托管 then a bot "
        "(leaving a running deal costs 40 points, docs/rules.md §5).",
    )
    def post(self, request, tournament_id: int):
        return super().post(request, tournament_id)

    def act(self, request, tournament_id: int):
        return services.tournament_leave(tournament_id=tournament_id, user=request.user)


class TournamentStartApi(_TournamentActionApi):
    @_action_schema(
        "tournament_start",
        "Start a tournament now (staff)",
        "Staff only: start now (else the server starts it at `starts_at`). With fewer than two "
        "players entered the tournament is cancelled (`cancelled_reason` `too_few_players`).",
    )
    def post(self, request, tournament_id: int):
        return super().post(request, tournament_id)

    def act(self, request, tournament_id: int):
        _staff_only(request)
        return services.tournament_start(tournament_id=tournament_id)


class TournamentStandingsApi(APIView):
    @extend_schema(
        operation_id="tournament_standings",
        summary="Read a tournament's standings",
        tags=["tournaments"],
        parameters=[_TOURNAMENT_ID],
        responses={
            200: StandingsOutputSerializer,
            **error_responses(ErrorCode.NOT_AUTHENTICATED, ErrorCode.NOT_FOUND),
        },
        description=(
            "The players still in, ranked over the finished rounds: by matchpoints (duplicate), then "
            'total score, then rating (docs/tournaments.md "Scoring"). Bots are never ranked.'
        ),
    )
    def get(self, request, tournament_id: int):
        tournament = selectors.tournament_get(tournament_id=tournament_id)
        return Response(selectors.standings_detail(tournament=tournament))


class TournamentRoundApi(APIView):
    @extend_schema(
        operation_id="tournament_round",
        summary="Read a round's tables and boards",
        tags=["tournaments"],
        parameters=[_TOURNAMENT_ID, OpenApiParameter("number", OpenApiTypes.INT, OpenApiParameter.PATH)],
        responses={
            200: RoundOutputSerializer,
            **error_responses(ErrorCode.NOT_AUTHENTICATED, ErrorCode.NOT_FOUND),
        },
        description=(
            "A round's tables and seats; per board, the scores at every table once no table of the "
            "round still plays it; the boards' seeds once the round is over (docs/tournaments.md "
            '"What a player can read").'
        ),
    )
    def get(self, request, tournament_id: int, number: int):
        tournament = selectors.tournament_get(tournament_id=tournament_id)
        round = selectors.round_get(tournament=tournament, number=number)
        return Response(selectors.round_detail(tournament=tournament, round=round))
