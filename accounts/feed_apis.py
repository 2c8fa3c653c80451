"""`GET me/events`: the caller's feed (docs/matchmaking.md "Your feed"), as a long-poll or as Server-Sent
Events.

One stream per client for everything addressed to the user. The SSE form sends each entry as
`id: <seq>` / `event: <type>` / `data: <json>`, a comment line every EVENTS_SSE_KEEPALIVE seconds, and
ends after EVENTS_SSE_MAX_SECONDS (clients reconnect with `Last-Event-ID`, as EventSource does), or
when the caller's token no longer reads it (checked as often); events/streams.py follows it.
"""

from drf_spectacular.utils import OpenApiExample, PolymorphicProxySerializer, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import feed
from accounts.models import SanctionKind
from games.view_serializers import GameActionOutputSerializer
from infra.api.errors import ErrorCode
from infra.api.schema import (
    LAST_EVENT_ID_PARAMETER,
    LONG_POLL_CAP,
    LONG_POLL_PARAMETERS,
    STREAM_CAP,
    error_responses,
    event_stream,
    type_field,
)
from infra.api.serializers import LongPollQueryInputSerializer

# The reasons a `table_closed` entry gives: the table's closing reasons (matchmaking's
# TableClosedReason, named here as values: accounts imports no other app), and `away`, said to one
# player only: he stayed on 托管 past the table's return time and a bot took his seat.
TABLE_CLOSED_REASONS = ("finished", "player_left", "trustee", "void_limit", "aborted", "no_humans", "away")
# Absent from entries written before these fields were added (a feed keeps its last 500 entries).
_NEWER = "Absent from entries written before API 1.6.0."


class TicketMatchedEventOutputSerializer(serializers.Serializer):
    type = type_field("ticket_matched")
    seq = serializers.IntegerField()
    ticket = serializers.IntegerField()
    table = serializers.IntegerField()
    game = serializers.IntegerField()
    seat = serializers.IntegerField()

    class Meta:
        ref_name = "TicketMatchedEvent"


class TicketExpiredEventOutputSerializer(serializers.Serializer):
    type = type_field("ticket_expired")
    seq = serializers.IntegerField()
    ticket = serializers.IntegerField()
    reason = serializers.ChoiceField(
        choices=["not_polled"],
        help_text="`not_polled`: the ticket was not read for the matchmaking TTL (docs/matchmaking.md).",
    )

    class Meta:
        ref_name = "TicketExpiredEvent"


class TicketCancelledEventOutputSerializer(serializers.Serializer):
    type = type_field("ticket_cancelled")
    seq = serializers.IntegerField()
    ticket = serializers.IntegerField()
    reason = serializers.ChoiceField(
        choices=["you", "staff", "banned", "account_deleted"],
        help_text=(
            "`you`: you cancelled it (maybe on another device); `staff`: a staff member did; `banned`: "
            "you may no longer queue (a sanction); `account_deleted`: the account is being deleted."
        ),
    )

    class Meta:
        ref_name = "TicketCancelledEvent"


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
    table = serializers.IntegerField(required=False, help_text=_NEWER)
    seat = serializers.IntegerField(required=False, help_text="Your seat. " + _NEWER)
    version = serializers.IntegerField(help_text="The version that prompts you.")
    deadline = serializers.DateTimeField(allow_null=True)
    legal_actions = GameActionOutputSerializer(
        many=True,
        required=False,
        help_text=(
            "What you may do at `version`, as your view lists it: post one with `expected_version` = "
            "`version` without reading the view first. In a window, other seats' answers raise the "
            "version without prompting you again, and your entry's version stays current until the "
            "window closes (API 1.3.0). A `409 stale_version` means the prompt has passed (say, the "
            "timer answered for you): read the view. Absent from entries written before API 1.2.0."
        ),
    )

    class Meta:
        ref_name = "YourTurnEvent"


class _SeatEntry(serializers.Serializer):
    """What a deal tells one seat's user: which deal, table and seat it is about."""

    seq = serializers.IntegerField()
    game = serializers.IntegerField()
    table = serializers.IntegerField()
    seat = serializers.IntegerField()


class PromptClosedEventOutputSerializer(_SeatEntry):
    type = type_field("prompt_closed")
    version = serializers.IntegerField(
        help_text=(
            "The deal's version once your answer was applied: every `your_turn` of this game before "
            "it is over."
        )
    )
    by = serializers.ChoiceField(
        choices=["you", "trustee", "timer", "aborted"],
        help_text=(
            "`you`: you answered (on this device or another); `trustee`: 托管 answered for your seat; "
            "`timer`: your deadline passed and the timer answered (see the `timeout` entry before it); "
            "`aborted`: the deal was aborted."
        ),
    )

    class Meta:
        ref_name = "PromptClosedEvent"


class FeedTimeoutEventOutputSerializer(_SeatEntry):
    type = type_field("timeout")
    version = serializers.IntegerField(help_text="The deal's version when your deadline passed.")
    outcome = serializers.ChoiceField(
        choices=["answered", "trustee"],
        help_text=(
            "`answered`: your prompt had one legal answer and it was given for you; your seat stays off "
            "托管. `trustee`: your seat went on 托管 (a `trustee` entry follows): take it back with "
            "`POST games/{id}/trustee {\"on\": false}` unless locked."
        ),
    )

    class Meta:
        ref_name = "FeedTimeoutEvent"


class FeedTrusteeEventOutputSerializer(_SeatEntry):
    type = type_field("trustee")
    on = serializers.BooleanField(help_text="Your seat is on 托管 now (the server answers for it).")
    locked = serializers.BooleanField(help_text="It may not come back (docs/rules.md §5).")
    by = serializers.ChoiceField(
        choices=["timeout", "request", "left", "moderator"],
        help_text=(
            "`timeout`: your deadline passed; `request`: you asked (`POST games/{id}/trustee`, maybe on "
            "another device); `left`: you left the table; `moderator`: a moderator removed or banned you."
        ),
    )

    class Meta:
        ref_name = "FeedTrusteeEvent"


class SanctionEventOutputSerializer(serializers.Serializer):
    type = type_field("sanction")
    seq = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=SanctionKind.choices)
    expires_at = serializers.DateTimeField(allow_null=True)

    class Meta:
        ref_name = "SanctionEvent"


# `report_outcome`'s outcome (matchmaking/moderation/services.py writes it).
REPORT_OUTCOMES = ("action_taken", "no_action")


class ReportOutcomeEventOutputSerializer(serializers.Serializer):
    type = type_field("report_outcome")
    seq = serializers.IntegerField()
    report = serializers.IntegerField(help_text="Your report's id (POST reports answered it).")
    outcome = serializers.ChoiceField(
        choices=REPORT_OUTCOMES,
        help_text="`action_taken`: a moderator acted on it; `no_action`: dismissed. Never what was done.",
    )

    class Meta:
        ref_name = "ReportOutcomeEvent"


class InvitedEventOutputSerializer(serializers.Serializer):
    type = type_field("invited")
    seq = serializers.IntegerField()
    invitation = serializers.IntegerField(help_text="Decline it with POST me/invitations/{id}/decline.")
    table = serializers.IntegerField()
    code = serializers.CharField(help_text="Join with it: POST tables/{table}/join.")
    by = serializers.CharField(help_text="The inviter's username.")

    class Meta:
        ref_name = "InvitedEvent"


class DealOverEventOutputSerializer(serializers.Serializer):
    type = type_field("deal_over")
    seq = serializers.IntegerField()
    table = serializers.IntegerField()
    game = serializers.IntegerField()
    scores = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        help_text="By seat; null for a void or aborted deal.",
    )
    unscored = serializers.BooleanField(help_text="Not added to the totals (all five on 托管, or aborted).")
    void = serializers.BooleanField(help_text="No emperor: dealt again at once, nothing scored.")
    totals = serializers.ListField(child=serializers.IntegerField(), help_text="The table's running totals.")
    next_deal = serializers.BooleanField(
        help_text="False: the table closes (a `table_closed` entry follows)."
    )
    next_deal_at = serializers.DateTimeField(
        allow_null=True, help_text="When the next deal is dealt (the table's pause between deals)."
    )

    class Meta:
        ref_name = "FeedDealOverEvent"


class TableClosedEventOutputSerializer(serializers.Serializer):
    type = type_field("table_closed")
    seq = serializers.IntegerField()
    table = serializers.IntegerField()
    reason = serializers.ChoiceField(
        choices=TABLE_CLOSED_REASONS,
        help_text="The table's `closed_reason`; `away`: you stayed on 托管 past the table's return "
        "time and a bot took your seat (the table plays on without you).",
    )

    class Meta:
        ref_name = "FeedTableClosedEvent"


class TournamentRoundEventOutputSerializer(serializers.Serializer):
    """docs/tournaments.md: a round seated you (before the first deal's own entries)."""

    type = type_field("tournament_round")
    seq = serializers.IntegerField()
    tournament = serializers.IntegerField()
    round = serializers.IntegerField()
    table = serializers.IntegerField()
    seat = serializers.IntegerField()
    game = serializers.IntegerField()

    class Meta:
        ref_name = "TournamentRoundEvent"


class TournamentFinishedEventOutputSerializer(serializers.Serializer):
    type = type_field("tournament_finished")
    seq = serializers.IntegerField()
    tournament = serializers.IntegerField()
    rank = serializers.IntegerField(allow_null=True, help_text="Null: withdrawn or sent off (not ranked).")
    matchpoints = serializers.IntegerField()
    score = serializers.IntegerField()

    class Meta:
        ref_name = "TournamentFinishedEvent"


FEED_EVENTS = {
    "ticket_matched": TicketMatchedEventOutputSerializer,
    "ticket_expired": TicketExpiredEventOutputSerializer,
    "ticket_cancelled": TicketCancelledEventOutputSerializer,
    "deal_started": FeedDealStartedEventOutputSerializer,
    "your_turn": YourTurnEventOutputSerializer,
    "prompt_closed": PromptClosedEventOutputSerializer,
    "timeout": FeedTimeoutEventOutputSerializer,
    "trustee": FeedTrusteeEventOutputSerializer,
    "sanction": SanctionEventOutputSerializer,
    "report_outcome": ReportOutcomeEventOutputSerializer,
    "invited": InvitedEventOutputSerializer,
    "deal_over": DealOverEventOutputSerializer,
    "table_closed": TableClosedEventOutputSerializer,
    "tournament_round": TournamentRoundEventOutputSerializer,
    "tournament_finished": TournamentFinishedEventOutputSerializer,
}
# The entry types, in the schema's FeedEventTypeEnum (config/settings/base.py).
FEED_EVENT_TYPES = tuple(FEED_EVENTS)


class FeedOutputSerializer(serializers.Serializer):
    events = PolymorphicProxySerializer(
        component_name="FeedEvent", serializers=FEED_EVENTS, resource_type_field_name="type", many=True
    )
    last_seq = serializers.IntegerField(help_text="Pass it back as `after`.")


class MeEventsApi(APIView):
    """The web role answers at once; the event server (events/) serves the same URL with its wait
    and its stream, and the reverse proxy routes the URL there."""

    @extend_schema(
        operation_id="me_events",
        extensions=event_stream("FeedEvent"),
        tags=["me"],
        parameters=[
            *LONG_POLL_PARAMETERS,
            LAST_EVENT_ID_PARAMETER,
        ],
        description=(
            "Everything addressed to you, in order: "
            + ", ".join(f"`{type}`" for type in FEED_EVENT_TYPES)
            + " (what each means and what to do: docs/client-guide.md §4). With "
            "`Accept: text/event-stream` the same entries come as Server-Sent Events (`id` = seq, "
            "`event` = type, `data` = the entry; reconnect with `Last-Event-ID` or `after`); the "
            "stream ends after EVENTS_SSE_MAX_SECONDS or when you may no longer read "
            "the feed (checked every EVENTS_SSE_CHECK_SECONDS). `after=0` starts from the oldest entry "
            "kept (the newest 500 are); to follow from now, pass `feed_last_seq` from `GET me/active`. "
            "A cursor past the newest entry is `409 feed_cursor_ahead`, one before entries no longer kept "
            "`410 feed_cursor_expired` (read `GET me/active`, then follow from its `feed_last_seq`); "
            "both give the feed's `last_seq` in `extra`." + LONG_POLL_CAP + STREAM_CAP
        ),
        responses={
            200: FeedOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.THROTTLED,
                ErrorCode.FEED_CURSOR_AHEAD,
                ErrorCode.FEED_CURSOR_EXPIRED,
            ),
        },
        examples=[
            OpenApiExample(
                "your turn",
                value={
                    "events": [
                        {
                            "type": "your_turn",
                            "game": 12,
                            "table": 4,
                            "seat": 2,
                            "version": 7,
                            "deadline": "2026-12-01T10:00:20Z",
                            "legal_actions": [
                                {"type": "play", "cards": ["9D"], "card": None},
                                {"type": "pass", "cards": [], "card": None},
                            ],
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
