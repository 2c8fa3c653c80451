"""The answers and queries of quick-match tickets, shared by the API (matchmaking/ticket_apis.py) and the
event server's long-poll of a ticket (events/logs.py)."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games import engine
from games.view_serializers import GameOptionsOutputSerializer
from matchmaking.models import BotLevel, TicketStatus


class TicketOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=TicketStatus.choices)
    # The same enum as the request's (matchmaking/ticket_apis.py).
    preset = serializers.ChoiceField(choices=engine.PRESETS)
    options = GameOptionsOutputSerializer(help_text="The preset's options (docs/rules.md §6).")
    rated = serializers.BooleanField()
    bots = serializers.BooleanField()
    bot_level = serializers.SerializerMethodField(
        help_text="The bot level asked for (null: the server's default)."
    )
    party = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    table = serializers.IntegerField(source="table_id", allow_null=True)
    game = serializers.IntegerField(source="game_id", allow_null=True)
    seat = serializers.IntegerField(allow_null=True)

    @extend_schema_field(serializers.ChoiceField(choices=BotLevel.choices, allow_null=True))
    def get_bot_level(self, ticket) -> str | None:
        return ticket.bot_level or None


class TicketPollQueryInputSerializer(serializers.Serializer):
    wait = serializers.FloatField(min_value=0, required=False, default=0)
