"""`GET me/events`: the caller's feed (CONTRACT §5 "Your feed"), as a long-poll or as Server-Sent Events.

One stream per client for everything addressed to the user. The SSE form sends each entry as
`id: <seq>` / `event: <type>` / `data: <json>`, a comment line every EVENTS_SSE_KEEPALIVE seconds, and
ends after EVENTS_SSE_MAX_SECONDS (clients reconnect with `Last-Event-ID`, as EventSource does).
"""

import asyncio
import time

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import StreamingHttpResponse
from drf_spectacular.utils import OpenApiExample, PolymorphicProxySerializer, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import feed
from accounts.models import SanctionKind
from config import shutdown, wakeups
from config.api import sse
from config.api.errors import ErrorCode
from config.api.long_poll import connections_release, long_poll_view
from config.api.schema import LONG_POLL_PARAMETERS, error_responses, type_field
from config.api.serializers import LongPollQueryInputSerializer

FEED_PAGE = 200
FEED_EVENT_TYPES = ("ticket_matched", "deal_started", "your_turn", "sanction")


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

    class Meta:
        ref_name = "YourTurnEvent"


class SanctionEventOutputSerializer(serializers.Serializer):
    type = type_field("sanction")
    seq = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=SanctionKind.choices)
    expires_at = serializers.DateTimeField(allow_null=True)

    class Meta:
        ref_name = "SanctionEvent"


FEED_EVENTS = {
    "ticket_matched": TicketMatchedEventOutputSerializer,
    "deal_started": FeedDealStartedEventOutputSerializer,
    "your_turn": YourTurnEventOutputSerializer,
    "sanction": SanctionEventOutputSerializer,
}


class FeedOutputSerializer(serializers.Serializer):
    events = PolymorphicProxySerializer(
        component_name="FeedEvent", serializers=FEED_EVENTS, resource_type_field_name="type", many=True
    )
    last_seq = serializers.IntegerField(help_text="Pass it back as `after`.")


class MeEventsApi(APIView):
    """Answers at once; `me_events_view` below waits (long-poll) or streams (SSE)."""

    @extend_schema(
        operation_id="me_events",
        tags=["auth"],
        parameters=[
            *LONG_POLL_PARAMETERS,
        ],
        description=(
            "Everything addressed to you, in order: `ticket_matched`, `deal_started`, `your_turn`, "
            "`sanction`. With `Accept: text/event-stream` the same entries come as Server-Sent Events "
            "(`id` = seq; reconnect with `Last-Event-ID`)."
        ),
        responses={
            200: FeedOutputSerializer,
            **error_responses(ErrorCode.INVALID_REQUEST, ErrorCode.NOT_AUTHENTICATED),
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


_long_poll = long_poll_view(
    MeEventsApi,
    channel=lambda request: wakeups.user_channel_name(request.user.pk),
    changed=lambda request, after: feed.feed_changed(user_id=request.user.pk, after=after),
)
_sync_view = sync_to_async(MeEventsApi.as_view())


def _sse_after(request) -> int:
    value = request.META.get("HTTP_LAST_EVENT_ID") or request.GET.get("after") or "0"
    return int(value) if value.isdigit() else 0


def _read_released(**kwargs) -> dict:
    try:
        return feed.feed_read(**kwargs)
    finally:
        connections_release()  # a stream must not hold a database connection while it waits


async def _stream(user_id: int, after: int):
    end = time.monotonic() + settings.EVENTS_SSE_MAX_SECONDS
    read = sync_to_async(_read_released)
    yield f"retry: 2000\n: feed of user {user_id}\n\n"
    async with wakeups.Waiter(channel=wakeups.user_channel_name(user_id)) as waiter:
        while (left := end - time.monotonic()) > 0 and not shutdown.is_requested():
            page = await read(user_id=user_id, after=after, limit=FEED_PAGE)
            if page["events"]:
                yield sse.entries(page["events"])
            after = page["last_seq"]
            if len(page["events"]) == FEED_PAGE:
                continue  # a full page: there may be more at once
            # Otherwise wait: the waiter was subscribed before the first read, so whatever
            # committed since that read has woken it already (one read per wake-up).
            waited = time.monotonic()
            await waiter.wait(min(left, settings.EVENTS_SSE_KEEPALIVE))
            if time.monotonic() - waited >= settings.EVENTS_SSE_KEEPALIVE - 0.05:
                yield ": keep-alive\n\n"
            await asyncio.sleep(0)


async def me_events_view(request):
    if not sse.wants_stream(request):
        return await _long_poll(request)
    # Authenticate (and validate) through the DRF view first, answering JSON errors as usual.
    request.META["HTTP_ACCEPT"] = "application/json"
    # DRF negotiates from `request.headers`, which a middleware may already have read (and Django
    # caches): drop the cached copy so that the new Accept is the one seen.
    request.__dict__.pop("headers", None)
    response = await _sync_view(request)
    if response.status_code != 200:
        return response
    events = _stream(request.user.pk, _sse_after(request))
    stream = StreamingHttpResponse(events, content_type="text/event-stream")
    stream["Cache-Control"] = "no-cache"
    stream["X-Accel-Buffering"] = "no"
    return stream


me_events_view.csrf_exempt = True
me_events_view.cls = MeEventsApi
me_events_view.initkwargs = {}
