"""`GET tables/{id}/events`: the table's public log, long-polled (CONTRACT §5 "Table events").

How a client learns the next deal's id without polling the table: it follows this log and reads
`deal_started {game, number}`; `deal_over` and `table_closed {reason}` end each deal and the table.
"""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from config import wakeups
from config.api.errors import ErrorCode
from config.api.long_poll import long_poll_view
from config.api.schema import error_responses
from config.api.serializers import StrictInputSerializer
from matchmaking import selectors
from matchmaking.models import TableClosedReason

TABLE_EVENT_TYPES = ("seat_taken", "seat_left", "deal_started", "deal_over", "table_closed")


class TableEventsQueryInputSerializer(StrictInputSerializer):
    after = serializers.IntegerField(min_value=0, required=False, default=0)
    wait = serializers.FloatField(min_value=0, required=False, default=0)


class TableEventUserOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    is_bot = serializers.BooleanField()


class TableEventOutputSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.ChoiceField(choices=TABLE_EVENT_TYPES)
    seat = serializers.IntegerField(required=False, help_text="seat_taken, seat_left")
    user = TableEventUserOutputSerializer(required=False, help_text="seat_taken, seat_left")
    game = serializers.IntegerField(required=False, help_text="deal_started, deal_over")
    number = serializers.IntegerField(required=False, help_text="deal_started: the deal's number, from 0")
    scores = serializers.ListField(
        child=serializers.IntegerField(), required=False, allow_null=True,
        help_text="deal_over: the deal's scores by seat (null for an aborted deal)",
    )
    unscored = serializers.BooleanField(required=False, help_text="deal_over: not counted")
    reason = serializers.ChoiceField(
        choices=TableClosedReason.choices, required=False, help_text="table_closed: why the table closed"
    )


class TableEventsOutputSerializer(serializers.Serializer):
    events = TableEventOutputSerializer(many=True)
    last_seq = serializers.IntegerField(help_text="Pass it back as `after`.")


class TableEventsApi(APIView):
    @extend_schema(
        operation_id="table_events",
        tags=["tables"],
        parameters=[
            OpenApiParameter("table_id", OpenApiTypes.INT, OpenApiParameter.PATH),
            OpenApiParameter("after", OpenApiTypes.INT, description="Events with a larger seq (default 0)."),
            OpenApiParameter(
                "wait", OpenApiTypes.NUMBER, description="Seconds to wait when there are none yet (≤ 30)."
            ),
        ],
        responses={
            200: TableEventsOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.PERMISSION_DENIED,
                ErrorCode.NOT_FOUND,
            ),
        },
        examples=[
            OpenApiExample(
                "next deal",
                value={
                    "events": [
                        {"type": "deal_over", "game": 41, "scores": [4, -1, -1, 4, -6], "unscored": False,
                         "seq": 12},
                        {"type": "deal_started", "game": 42, "number": 1, "seq": 13},
                    ],
                    "last_seq": 13,
                },
                response_only=True,
                status_codes=["200"],
            )
        ],
    )
    def get(self, request, table_id: int):
        query = TableEventsQueryInputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        table = selectors.table_get(table_id=table_id)
        return Response(
            selectors.table_events(table=table, user=request.user, after=query.validated_data["after"])
        )


table_events_view = long_poll_view(
    TableEventsApi,
    channel=lambda request, table_id: wakeups.table_channel_name(table_id),
    changed=lambda request, after, table_id: selectors.table_events_changed(table_id=table_id, after=after),
)
