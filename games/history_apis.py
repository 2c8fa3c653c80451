"""A player's game history: `GET users/{id}/games` (docs/client-guide.md "History").

Every deal the player was dealt into, newest first, each saying which seats bots played and whether
the player himself is a bot account, so a human's record and a bot's are never confused.
"""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from games import selectors
from games.models import GameStatus, UnratedReason
from infra.api.errors import ErrorCode
from infra.api.pagination import cursor_page
from infra.api.schema import error_responses


class UserGamesQueryInputSerializer(serializers.Serializer):
    cursor = serializers.CharField(required=False, help_text="The `next` of the previous page.")


class UserGameOutputSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    table = serializers.IntegerField()
    number = serializers.IntegerField(help_text="Deal number at the table, from 0.")
    preset = serializers.CharField()
    seat = serializers.IntegerField(min_value=0, max_value=4)
    status = serializers.ChoiceField(choices=GameStatus.choices)
    unscored = serializers.BooleanField(help_text="Ended with all five seats on trustee: not counted.")
    role = serializers.CharField(
        allow_null=True, help_text="The player's role in the deal; null while it runs (roles may be hidden)."
    )
    score = serializers.IntegerField(allow_null=True, help_text="The player's score; null unless `over`.")
    rated = serializers.BooleanField(help_text="The deal changed this player's rating.")
    unrated_reason = serializers.ChoiceField(
        choices=UnratedReason.choices,
        allow_null=True,
        help_text=(
            'Why the deal changed no rating (docs/matchmaking.md "Rated deals"); null when it was '
            "rated, or is not judged yet (running, or its rating task still to come)."
        ),
    )
    played_by_bot = serializers.BooleanField(help_text="This player is a bot account.")
    bots = serializers.ListField(
        child=serializers.BooleanField(), min_length=5, max_length=5, help_text="Per seat: a bot played it."
    )
    with_bots = serializers.BooleanField(help_text="At least one seat was played by a bot.")
    left = serializers.BooleanField(help_text="The player left this deal before it ended.")
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class UserGamesOutputSerializer(serializers.Serializer):
    user = serializers.IntegerField()
    is_bot = serializers.BooleanField(help_text="The player is a bot account: every row is a bot's game.")
    results = UserGameOutputSerializer(many=True)
    next = serializers.CharField(
        allow_null=True, help_text="Pass as `cursor` for the next page; null: no more."
    )


_EXAMPLE = {
    "user": 7,
    "is_bot": False,
    "results": [
        {
            "game": 12,
            "table": 3,
            "number": 0,
            "preset": "weihai",
            "seat": 2,
            "status": "over",
            "unscored": False,
            "role": "guard",
            "score": 4,
            "rated": True,
            "unrated_reason": None,
            "played_by_bot": False,
            "bots": [False, False, False, True, True],
            "with_bots": True,
            "left": False,
            "started_at": "2026-12-01T03:00:00Z",
            "finished_at": "2026-12-01T03:09:41Z",
        }
    ],
    "next": None,
}


class UserGamesApi(APIView):
    @extend_schema(
        operation_id="user_games",
        tags=["users"],
        parameters=[
            OpenApiParameter("user_id", OpenApiTypes.INT, OpenApiParameter.PATH),
            UserGamesQueryInputSerializer,
        ],
        responses={
            200: UserGamesOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.PERMISSION_DENIED,
                ErrorCode.NOT_FOUND,
            ),
        },
        examples=[OpenApiExample("history", value=_EXAMPLE, response_only=True, status_codes=["200"])],
        description=(
            "The deals a player was dealt into, newest first, 20 a page, each marking the seats bots "
            "played. Seen by the player, by the owner of a bot account, and by staff."
        ),
    )
    def get(self, request, user_id: int):
        UserGamesQueryInputSerializer(data=request.query_params).is_valid(raise_exception=True)
        is_bot, players = selectors.user_games(user_id=user_id, viewer=request.user)
        page, next_cursor = cursor_page(players, request, ordering=("-id",))
        rows = selectors.user_games_rows(players=page)
        return Response(
            {
                "user": user_id,
                "is_bot": is_bot,
                "results": UserGameOutputSerializer(rows, many=True).data,
                "next": next_cursor,
            }
        )
