"""`GET games/{id}/replay`: a finished deal step by step (games/replay.py), for whoever may read its
final view: its players, and anyone when the table is public. Every hand is in it, so never before
the deal ends (409 game_not_over, as the final view)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from games import replay, selectors
from games.models import GameStatus
from games.view_serializers import (
    GameActionOutputSerializer,
    GameCardCountOutputSerializer,
    GameTablePlayOutputSerializer,
)
from infra.api.errors import ApiError, ErrorCode
from infra.api.schema import error_responses


class ReplaySnapshotSerializer(serializers.Serializer):
    phase = serializers.CharField()
    counts = serializers.ListField(child=serializers.JSONField())
    card_counts = GameCardCountOutputSerializer(many=True, help_text="Cards held, by seat, with one type.")
    roles = serializers.ListField(child=serializers.CharField(allow_null=True))
    emperor = serializers.IntegerField(allow_null=True)
    table = GameTablePlayOutputSerializer(allow_null=True)
    passed = serializers.ListField(child=serializers.IntegerField())
    turn = serializers.IntegerField(allow_null=True)
    places = serializers.ListField(child=serializers.IntegerField(allow_null=True))
    to_act = serializers.ListField(child=serializers.IntegerField())
    multiplier = serializers.IntegerField()
    hands = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()), help_text="Every seat's cards."
    )

    class Meta:
        ref_name = "ReplaySnapshot"


class ReplayStepSerializer(ReplaySnapshotSerializer):
    seat = serializers.IntegerField(help_text="The seat that acted.")
    action = GameActionOutputSerializer()
    beatable = serializers.BooleanField(
        help_text="A pass by a seat whose legal actions held a play beating the table."
    )

    class Meta:
        ref_name = "ReplayStep"


class GameReplayOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table_id = serializers.IntegerField()
    number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=GameStatus.choices)
    preset = serializers.CharField()
    players = serializers.ListField(child=serializers.CharField(allow_null=True))
    scores = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    start = ReplaySnapshotSerializer(help_text="The deal as dealt, before the first action.")
    steps = ReplayStepSerializer(many=True, help_text="After each applied action, in order.")

    class Meta:
        ref_name = "GameReplay"


class GameReplayApi(APIView):
    @extend_schema(
        operation_id="game_replay",
        tags=["games"],
        parameters=[OpenApiParameter("game_id", OpenApiTypes.INT, OpenApiParameter.PATH)],
        responses={
            200: GameReplayOutputSerializer,
            **error_responses(
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.PERMISSION_DENIED,
                ErrorCode.NOT_FOUND,
                ErrorCode.GAME_NOT_OVER,
            ),
        },
        description=(
            "A finished deal step by step: every hand as dealt (`start`), then the table and every "
            "hand after each action. Readable where the final view is, once the deal is over."
        ),
    )
    def get(self, request, game_id: int):
        game = selectors.game_get(game_id=game_id, whole=True)
        selectors.game_access_seat(game=game, user=request.user)
        if game.status == GameStatus.RUNNING or game.final is None:
            raise ApiError(ErrorCode.GAME_NOT_OVER, "The deal is not over yet.")
        return Response(replay.game_replay(game=game))
