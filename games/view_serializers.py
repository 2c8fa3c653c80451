"""The exact shapes of the game views (docs/client-guide.md §3, §4): the seat view, the public view, the
final view.

The engine builds the views field by field (games/engine/views.py) and the service adds the game's
own fields (games/selectors.py `_extras`); these serializers declare every key of both, so that the
OpenAPI schema is what the server answers (tests/contract/test_conformance.py checks it).
"""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games import engine
from games.engine import PRESETS
from games.models import GameStatus

# One home per constant: the engine's action types and phases.
ACTION_TYPES = tuple(action_type.value for action_type in engine.ActionType)
PHASES = tuple(str(phase) for phase in engine.PHASES)
SEAT_ROLES = ("emperor", "guard", "soloist", "commoner")
SOLO_KINDS = ("open", "hidden")
WINDOW_KINDS = ("solo", "declaration", "kick")
DECLARATION_TYPES = ("solo", "reveal", "rebel", "kick")


@extend_schema_field(
    {
        "oneOf": [
            {"type": "integer", "minimum": 0},
            {"type": "string", "pattern": "^>[0-9]+$", "example": ">10"},
        ]
    }
)
class SeatCountField(serializers.JSONField):
    """A seat's card count: a number, or `">10"` where the preset hides larger counts (laowang)."""


class GameCardCountOutputSerializer(serializers.Serializer):
    """A seat's card count with one type; `counts` says the same in the form clients of 1.0 read."""

    at_least = serializers.IntegerField(
        min_value=0, help_text="The count where `exact`; else the smallest count it may be (laowang: 11)."
    )
    exact = serializers.BooleanField(help_text="False where the preset hides the count (laowang, above ten).")

    class Meta:
        ref_name = "GameCardCount"


class GameActionOutputSerializer(serializers.Serializer):
    """An action as the engine writes it: in `legal_actions`, and in the final view's `actions`."""

    type = serializers.ChoiceField(choices=ACTION_TYPES)
    cards = serializers.ListField(child=serializers.CharField(), help_text="Only `play` has cards.")
    card = serializers.CharField(allow_null=True, help_text="Only `call` and `solo` may name a card.")

    class Meta:
        ref_name = "GameAction"


@extend_schema_field(
    {
        "type": "array",
        "minItems": 2,
        "maxItems": 2,
        "items": {"oneOf": [{"type": "integer"}, {"$ref": "#/components/schemas/GameAction"}]},
        "description": "`[seat, action]`.",
    }
)
class SeatActionField(serializers.JSONField):
    pass


@extend_schema_field({"type": ["integer", "null"], "enum": [6, None]})
class MustLastField(serializers.JSONField):
    """`must_last`: 6 or null. Not `allow_null`, which would render a missing key as null when tables
    and tickets render their options through this serializer."""


class GameOptionsOutputSerializer(serializers.Serializer):
    """The preset's table options (docs/rules.md §6); only the lianzhong presets have any."""

    qiangdu = serializers.BooleanField(required=False)
    must_last = MustLastField(required=False)
    roasting = serializers.BooleanField(required=False)

    class Meta:
        ref_name = "GameOptions"


@extend_schema_field(GameOptionsOutputSerializer)
class GameOptionsInputField(serializers.DictField):
    """A table's or ticket's `options` in a request, declared as the answers' GameOptions (the
    schema's GameOptionsRequest, closed like every request object). The engine checks them, keys and
    values (games/engine/rules.py `_check_options`), so this stays a dict: a wrong option is the
    engine's `400 invalid_request`, as before."""


class GameWindowOutputSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=WINDOW_KINDS)
    asked = serializers.ListField(
        child=serializers.IntegerField(), help_text="Seats asked (never who answered)."
    )

    class Meta:
        ref_name = "GameWindow"


class GameDeclarationOutputSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    type = serializers.ChoiceField(choices=DECLARATION_TYPES)

    class Meta:
        ref_name = "GameDeclaration"


class GameTablePlayOutputSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    cards = serializers.ListField(child=serializers.CharField())
    bomb = serializers.BooleanField()

    class Meta:
        ref_name = "GameTablePlay"


class _GameFieldsSerializer(serializers.Serializer):
    """The service's fields, in every view (games/selectors.py `_extras`)."""

    id = serializers.IntegerField()
    table_id = serializers.IntegerField(
        help_text="The table's id (`table` is the play to beat)."
    )
    number = serializers.IntegerField(help_text="Deal number at the table, from 0.")
    status = serializers.ChoiceField(choices=GameStatus.choices)
    version = serializers.IntegerField(help_text="Rises by one per applied action.")
    deadline = serializers.DateTimeField(
        allow_null=True, help_text="When the current prompt times out (UTC)."
    )
    players = serializers.ListField(
        child=serializers.CharField(allow_null=True), help_text="Usernames by seat."
    )
    trustee = serializers.ListField(child=serializers.BooleanField(), help_text="Seats on 托管.")
    unscored = serializers.BooleanField(
        help_text="The deal ended with all five seats on trustee: kept, but not scored or rated."
    )


class _PublicFieldsSerializer(_GameFieldsSerializer):
    """What every viewpoint sees (games/engine/views.py `_public_fields`)."""

    preset = serializers.ChoiceField(choices=PRESETS)
    options = GameOptionsOutputSerializer()
    phase = serializers.ChoiceField(choices=PHASES)
    start_seat = serializers.IntegerField(help_text="The seat that led (or was first asked) this deal.")
    counts = serializers.ListField(
        child=SeatCountField(),
        help_text="Cards held, by seat: a number, or a string such as `\">10\"` where the preset hides it. "
        "Kept for existing clients; `card_counts` says the same with one type.",
    )
    card_counts = GameCardCountOutputSerializer(many=True, help_text="Cards held, by seat, with one type.")
    roles = serializers.ListField(
        child=serializers.ChoiceField(choices=SEAT_ROLES, allow_null=True),
        help_text="Roles by seat as this viewpoint knows them; null: not known to you.",
    )
    emperor = serializers.IntegerField(allow_null=True)
    candidate = serializers.IntegerField(allow_null=True, help_text="The seat asked to become emperor.")
    called_card = serializers.CharField(allow_null=True)
    solo = serializers.ChoiceField(
        choices=SOLO_KINDS, allow_null=True, help_text="Set once a solo is public (or to the soloist)."
    )
    window = GameWindowOutputSerializer(allow_null=True)
    declarations = GameDeclarationOutputSerializer(many=True, help_text="Public declarations, in order.")
    table = GameTablePlayOutputSerializer(allow_null=True, help_text="The play to beat, or null.")
    passed = serializers.ListField(child=serializers.IntegerField(), help_text="Seats that passed on it.")
    turn = serializers.IntegerField(allow_null=True)
    places = serializers.ListField(
        child=serializers.IntegerField(allow_null=True), help_text="1 = first out."
    )
    multiplier = serializers.IntegerField()
    pile = serializers.IntegerField(help_text="Cards in the travelling pile (emperor selection).")
    to_act = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        help_text="Seats prompted now; null while a window is open (who is still to answer is secret).",
    )
    turned_card = serializers.CharField(
        allow_null=True, required=False, help_text="Only presets that turn a card to find the candidate."
    )


class GameViewOutputSerializer(_PublicFieldsSerializer):
    """A seated player's view (engine.seat_view): the deal as his seat sees it."""

    seat = serializers.IntegerField(help_text="Your seat.")
    hand = serializers.ListField(child=serializers.CharField(), help_text="Your cards.")
    pile_cards = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="The travelling pile's cards, to the candidate only.",
    )
    legal_actions = GameActionOutputSerializer(many=True, help_text="What you may do now (empty: nothing).")

    class Meta:
        ref_name = "GameView"


class GameSpectatorViewOutputSerializer(_PublicFieldsSerializer):
    """A spectator's view of a public table's deal (engine.public_view): no seat, no hand, no actions.
    The schema says it has no `seat` (infra/api/schema_hooks.py), so that a view is one of the two
    and never both."""

    class Meta:
        ref_name = "GameSpectatorView"


class GameTributeOutputSerializer(serializers.Serializer):
    """The tribute the next deal owes (docs/rules.md §4)."""

    gives = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2),
        help_text="`[seat, count]` pairs of givers.",
    )
    takes = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2),
        help_text="`[seat, count]` pairs of takers, in finishing order.",
    )
    guard_middle = serializers.IntegerField(allow_null=True)
    jokers = serializers.BooleanField()

    class Meta:
        ref_name = "GameTribute"


class GameFinalOutputSerializer(_PublicFieldsSerializer):
    """engine.final_view (true roles, every hand as dealt, the seed, the actions) and the game's fields."""

    guard = serializers.IntegerField(allow_null=True)
    hands = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()), help_text="Every hand as dealt."
    )
    aside = serializers.ListField(child=serializers.CharField(), help_text="Cards set aside at the deal.")
    discards = serializers.ListField(
        child=serializers.ListField(child=serializers.JSONField(), min_length=2, max_length=2),
        help_text="`[seat, card]`: penalty discards made before play (laowang 串牌, docs/rules.md §3.6), "
        "out of play; `hands` are after them.",
    )
    seed = serializers.IntegerField(help_text="The deal's seed, to replay it.")
    actions = serializers.ListField(child=SeatActionField(), help_text="Every applied action, in order.")
    scores = serializers.ListField(child=serializers.IntegerField())
    tribute = GameTributeOutputSerializer()
    next_start_seat = serializers.IntegerField()
    void = serializers.BooleanField()
    abort_reason = serializers.CharField(
        allow_null=True,
        help_text="Why a moderator aborted the deal (status `aborted`: no result, `scores` all 0, "
        "`unscored`; the view shows the deal as it stood), else null.",
    )

    class Meta:
        ref_name = "GameFinal"
