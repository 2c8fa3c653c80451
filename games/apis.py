"""Thin views of the game API (docs/client-guide.md "Games", "Events", "Trustee")."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, PolymorphicProxySerializer, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.throttles import UserScopedRateThrottle
from games import selectors, services
from games.event_serializers import GameEventsQueryInputSerializer, game_event_union
from games.view_serializers import (
    ACTION_TYPES,
    GameActionOutputSerializer,
    GameFinalOutputSerializer,
    GameSpectatorViewOutputSerializer,
    GameViewOutputSerializer,
)
from infra.api.errors import ErrorCode
from infra.api.idempotency import KEY_HEADER, KEY_SCHEMA, REPLAYED_HEADER, idempotent
from infra.api.schema import (
    LAST_EVENT_ID_PARAMETER,
    LONG_POLL_CAP,
    LONG_POLL_PARAMETERS,
    STREAM_CAP,
    error_responses,
    event_stream,
)
from infra.api.serializers import StrictInputSerializer

# Which action types carry `cards` / `card` (the engine's Action constructors): any other type given a
# non-empty value is refused rather than having it silently ignored. An empty list and null carry
# nothing, so an entry of `legal_actions` can be sent back as it is.
TYPES_WITH_CARDS = frozenset({"play"})
TYPES_WITH_CARD = frozenset({"call", "solo"})


class GameActionInputSerializer(StrictInputSerializer):
    type = serializers.ChoiceField(choices=ACTION_TYPES)
    cards = serializers.ListField(
        child=serializers.CharField(max_length=4),
        max_length=64,
        required=False,
        help_text="Only for `play` (may be empty or absent otherwise).",
    )
    card = serializers.CharField(
        max_length=4,
        allow_null=True,
        required=False,
        help_text="Only for `call` and `solo` (may be null or absent otherwise).",
    )
    expected_version = serializers.IntegerField(
        min_value=0,
        required=False,
        help_text=(
            "The version the caller decided at (its view's or its `your_turn` entry's); another "
            "version is 409 `stale_version` and changes nothing. In an open window any version since "
            "it opened is current, since the other seats' answers are secret and change nothing you "
            "see (API 1.3.0; before, only the exact version)."
        ),
    )

    def validate(self, attrs):
        action_type = attrs["type"]
        wrong = {}
        if attrs.get("cards") and action_type not in TYPES_WITH_CARDS:
            wrong["cards"] = [f"A {action_type} action has no cards."]
        if attrs.get("card") is not None and action_type not in TYPES_WITH_CARD:
            wrong["card"] = [f"A {action_type} action has no card."]
        if wrong:
            raise serializers.ValidationError(wrong)
        return attrs


class GameTrusteeInputSerializer(StrictInputSerializer):
    on = serializers.BooleanField()


class GameEventsOutputSerializer(serializers.Serializer):
    events = game_event_union(many=True, help_text="The events after `after` that you may see, in order.")
    last_seq = serializers.IntegerField(help_text="Pass as `after` next time.")
    version = serializers.IntegerField()


_GAME_EXAMPLE = {
    "id": 12,
    "table_id": 3,
    "number": 0,
    "status": "running",
    "version": 5,
    "deadline": "2026-11-30T03:00:20Z",
    "players": ["ann", "bo", "cai", "dan", "eve"],
    "trustee": [False] * 5,
    "unscored": False,
    "preset": "weihai",
    "options": {},
    "phase": "play",
    "start_seat": 0,
    "counts": [30, 33, 33, 33, 33],
    "card_counts": [{"at_least": n, "exact": True} for n in [30, 33, 33, 33, 33]],
    "roles": ["emperor", None, "commoner", None, None],
    "emperor": 0,
    "candidate": None,
    "called_card": None,
    "solo": None,
    "window": None,
    "declarations": [],
    "table": {"seat": 0, "cards": ["5S"], "bomb": False},
    "passed": [1],
    "turn": 2,
    "places": [None] * 5,
    "multiplier": 1,
    "pile": 0,
    "to_act": [2],
}
_VIEW_EXAMPLE = {
    **_GAME_EXAMPLE,
    "seat": 2,
    "hand": ["BJ", "2S", "2H", "AS", "9D"],
    "legal_actions": [
        {"type": "pass", "cards": [], "card": None},
        {"type": "play", "cards": ["9D"], "card": None},
    ],
}
_FINAL_EXAMPLE = {
    **_GAME_EXAMPLE,
    "status": "over",
    "version": 187,
    "deadline": None,
    "phase": "over",
    "counts": [0, 0, 2, 1, 1],
    "card_counts": [{"at_least": n, "exact": True} for n in [0, 0, 2, 1, 1]],
    "roles": ["emperor", "commoner", "commoner", "guard", "commoner"],
    "table": None,
    "passed": [],
    "turn": None,
    "places": [1, 2, 5, 3, 4],
    "to_act": [],
    "guard": 3,
    "hands": [["BJ*", "2S", "9D"], ["SJ", "AH"], ["KC"], ["SJ*", "7H"], ["6D"]],
    "aside": [],
    "discards": [],
    "seed": 5830471920,
    "actions": [[0, {"type": "accept", "cards": [], "card": None}]],
    "scores": [4, -1, -1, 4, -6],
    "tribute": {"gives": [], "takes": [], "guard_middle": None, "jokers": False},
    "next_start_seat": 0,
    "void": False,
    "abort_reason": None,
}
_ABORTED_FINAL_EXAMPLE = {
    **_FINAL_EXAMPLE,
    "status": "aborted",
    "unscored": True,
    "phase": "play",
    "counts": [2, 2, 1, 2, 1],
    "card_counts": [{"at_least": n, "exact": True} for n in [2, 2, 1, 2, 1]],
    "places": [None, None, None, None, None],
    "turn": 2,
    "scores": [0, 0, 0, 0, 0],
    "tribute": {"gives": [], "takes": [], "guard_middle": None, "jokers": False},
    "abort_reason": "server bug in deal",
}
_GAME_ID = OpenApiParameter("game_id", OpenApiTypes.INT, OpenApiParameter.PATH)


class GameDetailApi(APIView):
    @extend_schema(
        operation_id="game_detail",
        tags=["games"],
        parameters=[_GAME_ID],
        responses={
            # One of the two: the seated view has `seat`, the spectator's has none.
            200: PolymorphicProxySerializer(
                component_name="GameDetail",
                serializers=[GameViewOutputSerializer, GameSpectatorViewOutputSerializer],
                resource_type_field_name=None,
            ),
            **error_responses(ErrorCode.NOT_AUTHENTICATED, ErrorCode.PERMISSION_DENIED, ErrorCode.NOT_FOUND),
        },
        examples=[
            OpenApiExample("seated", value=_VIEW_EXAMPLE, response_only=True, status_codes=["200"]),
            OpenApiExample("spectator", value=_GAME_EXAMPLE, response_only=True, status_codes=["200"]),
        ],
        description="The caller's seat_view (`GameView`); a spectator of a public table gets the "
        "public_view (`GameSpectatorView`, without `seat`, `hand` and `legal_actions`).",
    )
    def get(self, request, game_id: int):
        game = selectors.game_get(game_id=game_id)
        return Response(selectors.game_view(game=game, user=request.user))


class GameFinalApi(APIView):
    @extend_schema(
        operation_id="game_final",
        tags=["games"],
        parameters=[_GAME_ID],
        responses={
            200: GameFinalOutputSerializer,
            **error_responses(
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.PERMISSION_DENIED,
                ErrorCode.NOT_FOUND,
                ErrorCode.GAME_NOT_OVER,
            ),
        },
        examples=[
            OpenApiExample(
                "final",
                value=_FINAL_EXAMPLE,
                response_only=True,
                status_codes=["200"],
            ),
            OpenApiExample(
                "aborted",
                value=_ABORTED_FINAL_EXAMPLE,
                response_only=True,
                status_codes=["200"],
            ),
        ],
        description="engine.final_view: every hand as dealt, the seed, the actions and the scores. A "
        "deal a moderator aborted has ended too: engine.aborted_view, the deal as it stood (the actions "
        "so far), no result (`scores` all 0, `unscored`), and `abort_reason`. `409 game_not_over` only "
        "while the deal runs.",
    )
    def get(self, request, game_id: int):
        game = selectors.game_get(game_id=game_id, whole=True)
        return Response(selectors.game_final(game=game, user=request.user))


class GameHintThrottle(UserScopedRateThrottle):
    """Hints per user (HINTS_THROTTLE_RATE): each runs the bot, which costs more than reading a view."""

    scope = "hints"


class GameHintApi(APIView):
    throttle_classes = [GameHintThrottle]

    @extend_schema(
        operation_id="game_hint",
        tags=["games"],
        parameters=[_GAME_ID],
        responses={
            200: GameActionOutputSerializer,
            **error_responses(
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.PERMISSION_DENIED,
                ErrorCode.NOT_FOUND,
                ErrorCode.NOT_YOUR_TURN,
                ErrorCode.GAME_OVER,
                ErrorCode.THROTTLED,
            ),
        },
        examples=[
            OpenApiExample(
                "hint",
                value={"type": "play", "cards": ["9D", "9H"], "card": None},
                response_only=True,
                status_codes=["200"],
            )
        ],
        description="One of your `legal_actions`: the one the `normal` bot (docs/bots.md) chooses from your "
        "own view, the same `GET games/{id}` answers you, so it knows nothing you are not shown. Post it "
        "to `games/{id}/actions` as it is to follow the hint. `403 permission_denied` for a spectator, "
        "`409 not_your_turn` while you have nothing to do, `409 game_over` once the deal ended; "
        "HINTS_THROTTLE_RATE per user (60 a minute by default), then `429 throttled`.",
    )
    def get(self, request, game_id: int):
        game = selectors.game_get(game_id=game_id)
        return Response(selectors.game_hint(game=game, user=request.user))


class GameActionApi(APIView):
    @extend_schema(
        operation_id="game_action",
        tags=["games"],
        parameters=[
            _GAME_ID,
            OpenApiParameter(
                KEY_HEADER,
                KEY_SCHEMA,
                OpenApiParameter.HEADER,
                required=False,
                description=(
                    "Per user. The same key with the same body replays the stored status and body, "
                    "marked by the header `Idempotent-Replayed: true`; with another body: 409 "
                    "idempotency_key_reused. Only 200 responses are stored. Keys are kept "
                    "IDEMPOTENCY_KEY_RETENTION_HOURS (24 by default, docs/client-guide.md §6)."
                ),
            ),
            OpenApiParameter(
                REPLAYED_HEADER,
                {"type": "string", "enum": ["true"]},
                OpenApiParameter.HEADER,
                response=[200],
                description="Present on an answer replayed for an `Idempotency-Key` seen before.",
            ),
        ],
        request=GameActionInputSerializer,
        responses={
            200: GameViewOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.PERMISSION_DENIED,
                ErrorCode.NOT_FOUND,
                ErrorCode.NOT_YOUR_TURN,
                ErrorCode.WRONG_PHASE,
                ErrorCode.STALE_VERSION,
                ErrorCode.GAME_OVER,
                ErrorCode.IDEMPOTENCY_KEY_REUSED,
                ErrorCode.NOT_A_PLAY,
                ErrorCode.DOES_NOT_BEAT,
                ErrorCode.MUST_PLAY_LAST,
                ErrorCode.CANNOT_PASS_LEAD,
                ErrorCode.CARD_NOT_IN_HAND,
                ErrorCode.NOT_ALLOWED,
                ErrorCode.BAD_CALL,
            ),
        },
        examples=[
            OpenApiExample(
                "play", value={"type": "play", "cards": ["9D"], "expected_version": 5}, request_only=True
            ),
            OpenApiExample("pass", value={"type": "pass", "expected_version": 5}, request_only=True),
            OpenApiExample(
                "call", value={"type": "call", "card": "SJ", "expected_version": 5}, request_only=True
            ),
            OpenApiExample("new view", value=_VIEW_EXAMPLE, response_only=True, status_codes=["200"]),
        ],
    )
    def post(self, request, game_id: int):
        data = GameActionInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        action = {"type": fields["type"], "cards": list(fields.get("cards", [])), "card": fields.get("card")}
        expected_version = fields.get("expected_version")

        def perform() -> Response:
            return Response(
                services.game_action_apply(
                    game_id=game_id, user=request.user, action=action, expected_version=expected_version
                )
            )

        meaning = {"game": game_id, "action": action, "expected_version": expected_version}
        return idempotent(request, meaning=meaning, perform=perform)


class GameTrusteeApi(APIView):
    @extend_schema(
        operation_id="game_trustee",
        tags=["games"],
        parameters=[_GAME_ID],
        request=GameTrusteeInputSerializer,
        responses={
            200: GameViewOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.PERMISSION_DENIED,
                ErrorCode.NOT_FOUND,
                ErrorCode.GAME_OVER,
                ErrorCode.TRUSTEE_LOCKED,
            ),
        },
        examples=[OpenApiExample("on", value={"on": True}, request_only=True)],
        description="托管 on or off for the caller's seat; from its fourth entry in a deal it stays on "
        "(more than three entries lock the seat, docs/rules.md §5).",
    )
    def post(self, request, game_id: int):
        data = GameTrusteeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(services.game_trustee_set(game_id=game_id, user=request.user, **data.validated_data))


class GameEventsApi(APIView):
    """The web role answers at once; the event server (events/) serves the same URL with its wait
    and its stream, and the reverse proxy routes the URL there."""

    @extend_schema(
        operation_id="game_events",
        extensions=event_stream("GameEvent"),
        tags=["games"],
        description=(
            "The deal's log after `after`, redacted for you; with `wait` a long-poll. With "
            "`Accept: text/event-stream` the same events come as Server-Sent Events over one "
            "connection (`id` = seq, `event` = type, `data` = the event; reconnect with "
            "`Last-Event-ID` or `after`); the stream ends after the deal's last event "
            "(`deal_over`, `void`, `aborted`), after EVENTS_SSE_MAX_SECONDS, or when you may no "
            "longer read the log (checked every EVENTS_SSE_CHECK_SECONDS)." + LONG_POLL_CAP + STREAM_CAP
        ),
        parameters=[
            _GAME_ID,
            *LONG_POLL_PARAMETERS,
            LAST_EVENT_ID_PARAMETER,
        ],
        responses={
            200: GameEventsOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.PERMISSION_DENIED,
                ErrorCode.NOT_FOUND,
                ErrorCode.THROTTLED,
            ),
        },
        examples=[
            OpenApiExample(
                "events",
                value={
                    "events": [{"type": "play", "seat": 0, "cards": ["5S"], "seq": 9}],
                    "last_seq": 9,
                    "version": 5,
                },
                response_only=True,
                status_codes=["200"],
            )
        ],
    )
    def get(self, request, game_id: int):
        query = GameEventsQueryInputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        return Response(
            selectors.game_events(game_id=game_id, user=request.user, after=query.validated_data["after"])
        )
