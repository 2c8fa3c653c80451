"""`GET tables/{id}/events`: the table's public log, long-polled (docs/matchmaking.md "Table events").

How a client learns the next deal's id without polling the table: it follows this log and reads
`deal_started {game, number}`; `deal_over` and `table_closed {reason}` end each deal and the table.
"""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, PolymorphicProxySerializer, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from infra.api.errors import ErrorCode
from infra.api.schema import LONG_POLL_CAP, LONG_POLL_PARAMETERS, error_responses, type_field
from infra.api.serializers import LongPollQueryInputSerializer
from matchmaking import selectors
from matchmaking.models import TableClosedReason

TABLE_EVENT_TYPES = ("seat_taken", "seat_left", "deal_started", "deal_over", "table_closed")


class TableEventUserOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    is_bot = serializers.BooleanField()


class SeatTakenEventOutputSerializer(serializers.Serializer):
    type = type_field("seat_taken")
    seq = serializers.IntegerField()
    seat = serializers.IntegerField()
    user = TableEventUserOutputSerializer()

    class Meta:
        ref_name = "SeatTakenEvent"


class SeatLeftEventOutputSerializer(serializers.Serializer):
    type = type_field("seat_left")
    seq = serializers.IntegerField()
    seat = serializers.IntegerField()
    user = TableEventUserOutputSerializer()

    class Meta:
        ref_name = "SeatLeftEvent"


class DealStartedEventOutputSerializer(serializers.Serializer):
    """The next deal's id: follow this log rather than polling the table."""

    type = type_field("deal_started")
    seq = serializers.IntegerField()
    game = serializers.IntegerField()
    number = serializers.IntegerField(help_text="The deal's number at the table, from 0.")

    class Meta:
        ref_name = "DealStartedEvent"


class TableDealOverEventOutputSerializer(serializers.Serializer):
    """A deal ended (a void deal, dealt again at once, writes none)."""

    type = type_field("deal_over")
    seq = serializers.IntegerField()
    game = serializers.IntegerField()
    scores = serializers.ListField(child=serializers.IntegerField(), help_text="The deal's scores by seat.")
    unscored = serializers.BooleanField(help_text="All five seats on trustee: not added to the table's.")

    class Meta:
        ref_name = "TableDealOverEvent"


class TableClosedEventOutputSerializer(serializers.Serializer):
    type = type_field("table_closed")
    seq = serializers.IntegerField()
    reason = serializers.ChoiceField(choices=TableClosedReason.choices)

    class Meta:
        ref_name = "TableClosedEvent"


TABLE_EVENTS = {
    "seat_taken": SeatTakenEventOutputSerializer,
    "seat_left": SeatLeftEventOutputSerializer,
    "deal_started": DealStartedEventOutputSerializer,
    "deal_over": TableDealOverEventOutputSerializer,
    "table_closed": TableClosedEventOutputSerializer,
}


class TableEventsOutputSerializer(serializers.Serializer):
    events = PolymorphicProxySerializer(
        component_name="TableEvent", serializers=TABLE_EVENTS, resource_type_field_name="type", many=True
    )
    last_seq = serializers.IntegerField(help_text="Pass it back as `after`.")


class TableEventsApi(APIView):
    @extend_schema(
        operation_id="table_events",
        tags=["tables"],
        description="The table's log after `after`; with `wait` a long-poll." + LONG_POLL_CAP,
        parameters=[
            OpenApiParameter("table_id", OpenApiTypes.INT, OpenApiParameter.PATH),
            *LONG_POLL_PARAMETERS,
        ],
        responses={
            200: TableEventsOutputSerializer,
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
                "next deal",
                value={
                    "events": [
                        {
                            "type": "deal_over",
                            "game": 41,
                            "scores": [4, -1, -1, 4, -6],
                            "unscored": False,
                            "seq": 12,
                        },
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
        query = LongPollQueryInputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        table = selectors.table_get(table_id=table_id)
        return Response(
            selectors.table_events(table=table, user=request.user, after=query.validated_data["after"])
        )
