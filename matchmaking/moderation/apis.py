"""Thin views of the moderation API (docs/moderation.md). Staff only, except `POST reports`: each endpoint
needs `is_staff` and the Django permission of its power (the `moderators` group holds them all)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import UserRateThrottle
from rest_framework.views import APIView

from accounts import selectors as account_selectors
from accounts.apis import SANCTION_EXAMPLE, SanctionOutputSerializer
from accounts.models import ModerationActionKind, SanctionKind
from accounts.permissions import IsNotBanned, ModerationScope
from games.models import GameStatus
from infra.api.errors import ApiError, ErrorCode
from infra.api.schema import error_responses
from infra.api.serializers import StrictInputSerializer
from matchmaking.models import ReportReason, ReportStatus
from matchmaking.moderation import selectors, services

PAGE_SIZE = 50
SOURCE = "api"


class IsModerator(BasePermission):
    """Staff holding the view's `moderation_permission` (superusers hold every permission)."""

    def has_permission(self, request, view) -> bool:
        user = request.user
        if not (user.is_staff and user.has_perm(view.moderation_permission)):
            raise ApiError(ErrorCode.PERMISSION_DENIED, "Staff only: this needs moderator rights.")
        return True


class _ModerationApi(APIView):
    permission_classes = [IsAuthenticated, IsNotBanned, IsModerator, ModerationScope]
    moderation_permission = ""


_STAFF_ERRORS = (ErrorCode.INVALID_REQUEST, ErrorCode.NOT_AUTHENTICATED, ErrorCode.PERMISSION_DENIED)


def _cursor(rows: list, *, limit: int) -> int | None:
    return rows[-1].pk if len(rows) == limit else None


class ReportsThrottle(UserRateThrottle):
    """Reports per reporter (REPORTS_THROTTLE_RATE): the queue is read by people."""

    scope = "reports"

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)


# --- reports ---------------------------------------------------------------------------------------


class ReportCreateInputSerializer(StrictInputSerializer):
    user = serializers.IntegerField(min_value=1, help_text="The reported player's id.")
    game = serializers.IntegerField(min_value=1, required=False, allow_null=True)
    reason = serializers.ChoiceField(choices=ReportReason.choices)
    text = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")


class ReportCreatedOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=ReportStatus.choices)


class ReportCreateApi(APIView):
    throttle_classes = [ReportsThrottle]

    @extend_schema(
        operation_id="report_create",
        tags=["moderation"],
        request=ReportCreateInputSerializer,
        responses={
            201: ReportCreatedOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.NOT_FOUND,
                ErrorCode.THROTTLED,
            ),
        },
        examples=[
            OpenApiExample(
                "report",
                value={
                    "user": 9,
                    "game": 12,
                    "reason": "collusion",
                    "text": "Seats 1 and 3 pass to each other.",
                },
                request_only=True,
            ),
            OpenApiExample(
                "created", value={"id": 5, "status": "open"}, response_only=True, status_codes=["201"]
            ),
        ],
        description="Any signed-in player reports another (not himself) to the moderators.",
    )
    def post(self, request):
        data = ReportCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        report = services.report_create(
            reporter=request.user,
            user_id=fields["user"],
            game_id=fields.get("game"),
            reason=fields["reason"],
            text=fields["text"],
        )
        return Response({"id": report.pk, "status": report.status}, status=status.HTTP_201_CREATED)


class ReportLinksOutputSerializer(serializers.Serializer):
    game_events = serializers.CharField(allow_null=True, help_text="The reported deal's events (API).")
    game_admin = serializers.CharField(allow_null=True, help_text="The deal in the admin, events paged.")


class ReportOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=ReportStatus.choices)
    reporter = serializers.IntegerField(source="reporter_id")
    user = serializers.IntegerField(source="user_id")
    game = serializers.IntegerField(source="game_id", allow_null=True)
    reason = serializers.ChoiceField(choices=ReportReason.choices)
    text = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    handled_by = serializers.IntegerField(source="handled_by_id", allow_null=True)
    handled_at = serializers.DateTimeField(allow_null=True)
    note = serializers.CharField(allow_blank=True)
    links = serializers.SerializerMethodField()

    def get_links(self, report) -> ReportLinksOutputSerializer:
        if report.game_id is None:
            return {"game_events": None, "game_admin": None}
        return {
            "game_events": f"/api/v1/games/{report.game_id}/events",
            "game_admin": f"/admin/games/game/{report.game_id}/change/",
        }


class ReportListOutputSerializer(serializers.Serializer):
    results = ReportOutputSerializer(many=True)
    next = serializers.IntegerField(allow_null=True, help_text="Pass as `cursor` for older reports.")


class ReportListQueryInputSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=ReportStatus.choices, required=False)
    cursor = serializers.IntegerField(min_value=1, required=False)


_REPORT_EXAMPLE = {
    "id": 5,
    "status": "open",
    "reporter": 8,
    "user": 9,
    "game": 12,
    "reason": "collusion",
    "text": "Seats 1 and 3 pass to each other.",
    "created_at": "2026-12-01T02:50:00Z",
    "handled_by": None,
    "handled_at": None,
    "note": "",
    "links": {"game_events": "/api/v1/games/12/events", "game_admin": "/admin/games/game/12/change/"},
}


class ModerationReportListApi(_ModerationApi):
    moderation_permission = "matchmaking.view_report"

    @extend_schema(
        operation_id="moderation_reports",
        tags=["moderation"],
        parameters=[ReportListQueryInputSerializer],
        responses={200: ReportListOutputSerializer, **error_responses(*_STAFF_ERRORS)},
        examples=[
            OpenApiExample(
                "queue",
                value={"results": [_REPORT_EXAMPLE], "next": None},
                response_only=True,
                status_codes=["200"],
            )
        ],
        description=f"The report queue, newest first, {PAGE_SIZE} a page.",
    )
    def get(self, request):
        query = ReportListQueryInputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        rows = selectors.reports_list(
            status=query.validated_data.get("status"),
            before=query.validated_data.get("cursor"),
            limit=PAGE_SIZE,
        )
        return Response(
            {"results": ReportOutputSerializer(rows, many=True).data, "next": _cursor(rows, limit=PAGE_SIZE)}
        )


class ModerationNoteInputSerializer(StrictInputSerializer):
    note = serializers.CharField(max_length=2000)


_REPORT_ID = OpenApiParameter("report_id", OpenApiTypes.INT, OpenApiParameter.PATH)


class ModerationReportDismissApi(_ModerationApi):
    moderation_permission = "matchmaking.dismiss_report"

    @extend_schema(
        operation_id="moderation_report_dismiss",
        tags=["moderation"],
        parameters=[_REPORT_ID],
        request=ModerationNoteInputSerializer,
        responses={200: ReportOutputSerializer, **error_responses(*_STAFF_ERRORS, ErrorCode.NOT_FOUND)},
        description="Close an open report without action; the note is the audit entry's reason.",
    )
    def post(self, request, report_id: int):
        data = ModerationNoteInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        report = services.report_dismiss(
            report_id=report_id, moderator=request.user, note=data.validated_data["note"], source=SOURCE
        )
        return Response(ReportOutputSerializer(report).data)


# --- sanctions -------------------------------------------------------------------------------------


class SanctionCreateInputSerializer(StrictInputSerializer):
    user = serializers.IntegerField(min_value=1)
    kind = serializers.ChoiceField(choices=SanctionKind.choices)
    reason = serializers.CharField(max_length=2000)
    expires_at = serializers.DateTimeField(required=False, allow_null=True, help_text="null: until revoked.")
    report = serializers.IntegerField(min_value=1, required=False, allow_null=True)


class ModerationSanctionCreateApi(_ModerationApi):
    moderation_permission = "accounts.add_sanction"

    @extend_schema(
        operation_id="moderation_sanction_create",
        tags=["moderation"],
        request=SanctionCreateInputSerializer,
        responses={201: SanctionOutputSerializer, **error_responses(*_STAFF_ERRORS, ErrorCode.NOT_FOUND)},
        examples=[
            OpenApiExample(
                "ban a week",
                value={
                    "user": 7,
                    "kind": "ban",
                    "reason": "Colluded with seat 3 (report 12).",
                    "expires_at": "2026-12-08T03:00:00Z",
                    "report": 12,
                },
                request_only=True,
            ),
            OpenApiExample("sanction", value=SANCTION_EXAMPLE, response_only=True, status_codes=["201"]),
        ],
        description=(
            "A `ban` refuses every request of the user but `GET me`, `GET me/restrictions` and logging "
            "out (`403 banned`), puts his running seats on locked trustee and cancels his tickets; a "
            "`queue_ban` refuses joins and tickets. Both end at `expires_at` by themselves. Naming a "
            "`report` marks it `actioned`."
        ),
    )
    def post(self, request):
        data = SanctionCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        sanction = services.sanction_impose(
            user_id=fields["user"],
            kind=fields["kind"],
            reason=fields["reason"],
            expires_at=fields.get("expires_at"),
            moderator=request.user,
            source=SOURCE,
            report_id=fields.get("report"),
        )
        return Response(SanctionOutputSerializer(sanction).data, status=status.HTTP_201_CREATED)


class ModerationSanctionRevokeApi(_ModerationApi):
    moderation_permission = "accounts.revoke_sanction"

    @extend_schema(
        operation_id="moderation_sanction_revoke",
        tags=["moderation"],
        parameters=[OpenApiParameter("sanction_id", OpenApiTypes.INT, OpenApiParameter.PATH)],
        request=ModerationNoteInputSerializer,
        responses={200: SanctionOutputSerializer, **error_responses(*_STAFF_ERRORS, ErrorCode.NOT_FOUND)},
        description=(
            "End a sanction now. A seat already put on trustee by a ban stays so until its deal ends."
        ),
    )
    def post(self, request, sanction_id: int):
        data = ModerationNoteInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        sanction = services.sanction_revoke(
            sanction_id=sanction_id, moderator=request.user, note=data.validated_data["note"], source=SOURCE
        )
        return Response(SanctionOutputSerializer(sanction).data)


# --- deals -----------------------------------------------------------------------------------------


class GameAbortInputSerializer(StrictInputSerializer):
    reason = serializers.CharField(max_length=2000)
    report = serializers.IntegerField(min_value=1, required=False, allow_null=True)


class GameAbortOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=GameStatus.choices)
    unscored = serializers.BooleanField()


class ModerationGameAbortApi(_ModerationApi):
    moderation_permission = "matchmaking.abort_game"

    @extend_schema(
        operation_id="moderation_game_abort",
        tags=["moderation"],
        parameters=[OpenApiParameter("game_id", OpenApiTypes.INT, OpenApiParameter.PATH)],
        request=GameAbortInputSerializer,
        responses={
            200: GameAbortOutputSerializer,
            **error_responses(*_STAFF_ERRORS, ErrorCode.NOT_FOUND, ErrorCode.GAME_OVER),
        },
        examples=[
            OpenApiExample(
                "aborted",
                value={"id": 12, "table_id": 3, "status": "aborted", "unscored": True},
                response_only=True,
                status_codes=["200"],
            )
        ],
        description=(
            "End a running deal at once: status `aborted`, an `aborted {reason}` event, `unscored`, not "
            "rated; its final view (`GET games/{id}/final`) shows the deal as it stood, with "
            "`abort_reason`; its table is closed (`table_closed {reason: aborted}`)."
        ),
    )
    def post(self, request, game_id: int):
        data = GameAbortInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        game = services.game_abort(
            game_id=game_id,
            reason=data.validated_data["reason"],
            moderator=request.user,
            source=SOURCE,
            report_id=data.validated_data.get("report"),
        )
        return Response(
            {"id": game.pk, "table_id": game.table_id, "status": game.status, "unscored": game.unscored}
        )


# --- audit -----------------------------------------------------------------------------------------


class AuditEntryOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    moderator = serializers.IntegerField(source="moderator_id")
    action = serializers.ChoiceField(choices=ModerationActionKind.choices)
    target_type = serializers.CharField()
    target_id = serializers.IntegerField()
    user = serializers.IntegerField(
        source="subject_user_id", allow_null=True, help_text="The player concerned."
    )
    reason = serializers.CharField(allow_blank=True)
    details = serializers.DictField()
    source = serializers.CharField(help_text="`api` or `admin`.")
    created_at = serializers.DateTimeField()


class AuditListOutputSerializer(serializers.Serializer):
    results = AuditEntryOutputSerializer(many=True)
    next = serializers.IntegerField(allow_null=True, help_text="Pass as `cursor` for older entries.")


class AuditQueryInputSerializer(serializers.Serializer):
    user = serializers.IntegerField(min_value=1, required=False)
    moderator = serializers.IntegerField(min_value=1, required=False)
    cursor = serializers.IntegerField(min_value=1, required=False)


class ModerationAuditApi(_ModerationApi):
    moderation_permission = "accounts.view_moderationaction"

    @extend_schema(
        operation_id="moderation_audit",
        tags=["moderation"],
        parameters=[AuditQueryInputSerializer],
        responses={200: AuditListOutputSerializer, **error_responses(*_STAFF_ERRORS)},
        examples=[
            OpenApiExample(
                "audit",
                value={
                    "results": [
                        {
                            "id": 31,
                            "moderator": 2,
                            "action": "sanction",
                            "target_type": "sanction",
                            "target_id": 4,
                            "user": 7,
                            "reason": "Colluded with seat 3 (report 12).",
                            "details": {"kind": "ban", "expires_at": "2026-12-08T03:00:00Z", "report": 12},
                            "source": "api",
                            "created_at": "2026-12-01T03:00:00Z",
                        }
                    ],
                    "next": None,
                },
                response_only=True,
                status_codes=["200"],
            )
        ],
        description=(
            "Every staff action, through the API or the admin, newest first; append-only. `user`: "
            f"entries concerning that player; `moderator`: made by that moderator. {PAGE_SIZE} a page."
        ),
    )
    def get(self, request):
        query = AuditQueryInputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        params = query.validated_data
        rows = account_selectors.moderation_actions(
            user_id=params.get("user"),
            moderator_id=params.get("moderator"),
            before=params.get("cursor"),
            limit=PAGE_SIZE,
        )
        return Response(
            {
                "results": AuditEntryOutputSerializer(rows, many=True).data,
                "next": _cursor(rows, limit=PAGE_SIZE),
            }
        )


# --- fouls (docs/rules.md §3.5) ----------------------------------------------------------------------------


class SeatFoulInputSerializer(StrictInputSerializer):
    reason = serializers.CharField(max_length=2000)


class SeatFoulOutputSerializer(serializers.Serializer):
    user = serializers.IntegerField()
    fouls = serializers.IntegerField(help_text="The player's fouls at this table, this one included.")
    removed = serializers.BooleanField(help_text="This was his second foul: he was removed.")


class ModerationSeatFoulApi(_ModerationApi):
    moderation_permission = "matchmaking.remove_player"

    @extend_schema(
        operation_id="moderation_seat_foul",
        tags=["moderation"],
        parameters=[
            OpenApiParameter("table_id", OpenApiTypes.INT, OpenApiParameter.PATH),
            OpenApiParameter("seat", OpenApiTypes.INT, OpenApiParameter.PATH),
        ],
        request=SeatFoulInputSerializer,
        responses={200: SeatFoulOutputSerializer, **error_responses(*_STAFF_ERRORS, ErrorCode.NOT_FOUND)},
        examples=[
            OpenApiExample(
                "second foul",
                value={"user": 9, "fouls": 2, "removed": True},
                response_only=True,
                status_codes=["200"],
            )
        ],
        description=(
            "Campus tables (docs/rules.md §3.5): record a foul (talking, noise, peeking) of the seat's "
            "player, a 0-point `foul` penalty; his second foul at the table removes him (40 points during "
            "a deal)."
        ),
    )
    def post(self, request, table_id: int, seat: int):
        data = SeatFoulInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user_id, fouls, removed = services.seat_foul(
            table_id=table_id,
            seat=seat,
            moderator=request.user,
            reason=data.validated_data["reason"],
            source=SOURCE,
        )
        return Response({"user": user_id, "fouls": fouls, "removed": removed})


# --- 串牌 (docs/rules.md §3.6) -----------------------------------------------------------------------------


class SeatCollusionOutputSerializer(serializers.Serializer):
    user = serializers.IntegerField()
    pending = serializers.IntegerField(
        help_text="His discards at this table still to be made, this one included (one card each)."
    )


class ModerationSeatCollusionApi(_ModerationApi):
    moderation_permission = "matchmaking.remove_player"

    @extend_schema(
        operation_id="moderation_seat_collusion",
        tags=["moderation"],
        parameters=[
            OpenApiParameter("table_id", OpenApiTypes.INT, OpenApiParameter.PATH),
            OpenApiParameter("seat", OpenApiTypes.INT, OpenApiParameter.PATH),
        ],
        request=SeatFoulInputSerializer,
        responses={
            200: SeatCollusionOutputSerializer,
            **error_responses(*_STAFF_ERRORS, ErrorCode.NOT_FOUND, ErrorCode.TABLE_CLOSED),
        },
        examples=[
            OpenApiExample(
                "recorded", value={"user": 9, "pending": 1}, response_only=True, status_codes=["200"]
            )
        ],
        description=(
            "laowang tables (docs/rules.md §3.6): record 串牌 (exposing cards, collusion) by the seat's "
            "player, a 0-point `collusion` penalty. Before the table's next deal starts he discards a 2 "
            "(else his highest non-joker) out of play: the table sees a `penalty_discard` event, he alone "
            "`penalty_discard_card` with the card. A closed table answers 409 `table_closed`."
        ),
    )
    def post(self, request, table_id: int, seat: int):
        data = SeatFoulInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user_id, pending = services.seat_collusion(
            table_id=table_id,
            seat=seat,
            moderator=request.user,
            reason=data.validated_data["reason"],
            source=SOURCE,
        )
        return Response({"user": user_id, "pending": pending})
