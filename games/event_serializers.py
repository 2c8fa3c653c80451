"""Every game event as a declared shape: a union discriminated on `type` (docs/client-guide.md "Events").

One serializer per event type the engine (games/engine: windows, tricks, selection, deal, exchanges,
settle) and the services (games/actions.py, games/services.py) write. Each has its `seq`; an event
kept to some seats carries `private_to` and reaches only them. The `bench` event of the benchmark
endpoints (games/bench.py, mounted only with BENCH_ENDPOINTS, never in production) is no part of the
public union.
"""

from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from games.view_serializers import DECLARATION_TYPES, WINDOW_KINDS, GameDeclarationOutputSerializer
from infra.api.converters import MAX_ID
from infra.api.schema import type_field


def _seats(**kwargs) -> serializers.ListField:
    return serializers.ListField(child=serializers.IntegerField(), **kwargs)


def _cards(**kwargs) -> serializers.ListField:
    return serializers.ListField(child=serializers.CharField(), **kwargs)


def _private_to() -> serializers.ListField:
    return _seats(help_text="The seats this event is shown to.")


def _event(event_type: str, doc: str, **fields) -> type[serializers.Serializer]:
    name = "".join(part.title() for part in event_type.split("_")) + "Event"
    attrs = {
        "__doc__": doc,
        "EVENT_TYPE": event_type,
        "type": type_field(event_type),
        "seq": serializers.IntegerField(help_text="Position in the game's log."),
        **fields,
        "Meta": type("Meta", (), {"ref_name": name}),
    }
    return type(f"{name}OutputSerializer", (serializers.Serializer,), attrs)


def _answer_fields() -> dict:
    # Shared by the candidate's answers (emperor selection).
    return {
        "seat": serializers.IntegerField(),
        "auto": serializers.BooleanField(required=False, help_text="Answered by the timer or 托管."),
    }


GAME_EVENTS: dict[str, type[serializers.Serializer]] = {
    serializer.EVENT_TYPE: serializer
    for serializer in (
        _event(
            "candidate",
            "The seat asked first to become emperor.",
            seat=serializers.IntegerField(),
            turned_card=serializers.CharField(required=False, help_text="Presets that turn a card."),
        ),
        _event("accept", "The candidate became emperor.", **_answer_fields()),
        _event(
            "decline",
            "The candidate declined; `to` is the next candidate.",
            **_answer_fields(),
            to=serializers.IntegerField(),
            attached=serializers.IntegerField(help_text="Cards attached to the pile (0 or 1)."),
        ),
        _event(
            "transfer",
            "The candidate passed the emperor card to `to`.",
            **_answer_fields(),
            to=serializers.IntegerField(),
        ),
        _event(
            "solo",
            "The emperor goes alone (自保/独保); `card` in presets that call a card.",
            **_answer_fields(),
            card=serializers.CharField(required=False),
        ),
        _event(
            "call",
            "The emperor named the guard's card.",
            seat=serializers.IntegerField(),
            card=serializers.CharField(),
        ),
        _event(
            "pile_taken",
            "The emperor took the travelling pile.",
            seat=serializers.IntegerField(),
            count=serializers.IntegerField(),
        ),
        _event(
            "attach_cards",
            "A declining candidate attached a card to the pile.",
            seat=serializers.IntegerField(),
            to=serializers.IntegerField(),
            cards=_cards(),
            private_to=_private_to(),
        ),
        _event(
            "pile_received",
            "The travelling pile's cards, to the new candidate.",
            seat=serializers.IntegerField(),
            cards=_cards(),
            private_to=_private_to(),
        ),
        _event("void", "Nobody became emperor: the deal is void and dealt again."),
        _event(
            "tribute",
            "A tribute (进贡) of `count` cards from `seat` to `to`.",
            seat=serializers.IntegerField(),
            to=serializers.IntegerField(),
            count=serializers.IntegerField(),
        ),
        _event(
            "tribute_cards",
            "The tribute's cards, to the giver and the taker.",
            seat=serializers.IntegerField(),
            to=serializers.IntegerField(),
            cards=_cards(),
            private_to=_private_to(),
        ),
        _event(
            "penalty_discard",
            "laowang 串牌 (docs/rules.md §3.6): `seat` discarded a card out of play before this deal.",
            seat=serializers.IntegerField(),
        ),
        _event(
            "penalty_discard_card",
            "The card the penalty took (a 2, else his highest non-joker), to the offender only.",
            seat=serializers.IntegerField(),
            card=serializers.CharField(),
            private_to=_private_to(),
        ),
        _event(
            "buy_three",
            "campus: `seat` bought a 3 from `from`.",
            seat=serializers.IntegerField(),
            paid=serializers.BooleanField(),
            **{"from": serializers.IntegerField()},
        ),
        _event(
            "buy_three_cards",
            "The 3 bought and the payment, to the buyer and the seller.",
            seat=serializers.IntegerField(),
            card=serializers.CharField(),
            payment=serializers.CharField(allow_null=True),
            private_to=_private_to(),
            **{"from": serializers.IntegerField()},
        ),
        _event(
            "window_opened",
            "A declaration window opened; the seats asked.",
            kind=serializers.ChoiceField(choices=WINDOW_KINDS),
            asked=_seats(),
        ),
        _event(
            "answer",
            "Your own answer in a window (private: nobody learns who answered what before it closes).",
            seat=serializers.IntegerField(),
            kind=serializers.ChoiceField(choices=WINDOW_KINDS),
            answer=serializers.ChoiceField(choices=(*DECLARATION_TYPES, "stay")),
            private_to=_private_to(),
        ),
        _event(
            "window_closed",
            "A window closed: its declarations and what they changed.",
            kind=serializers.ChoiceField(choices=WINDOW_KINDS),
            declarations=GameDeclarationOutputSerializer(many=True),
            multiplier=serializers.IntegerField(),
            soloist=serializers.IntegerField(required=False),
            guard=serializers.IntegerField(required=False),
            rebellion=serializers.ChoiceField(choices=("succeeded",), required=False),
            kicks_succeeded=serializers.ListField(
                child=serializers.ChoiceField(choices=("commoners", "emperor_side")), required=False
            ),
        ),
        _event("play_started", "Play begins; `leader` leads.", leader=serializers.IntegerField()),
        _event(
            "play",
            "A play.",
            seat=serializers.IntegerField(),
            cards=_cards(),
            bomb=serializers.BooleanField(required=False),
        ),
        _event("pass", "A pass.", seat=serializers.IntegerField()),
        _event(
            "out",
            "A seat played its last card.",
            seat=serializers.IntegerField(),
            place=serializers.IntegerField(),
        ),
        _event(
            "guard_revealed",
            "The guard card was played: the guard is known.",
            seat=serializers.IntegerField(),
        ),
        _event("solo_revealed", "A hidden soloist is known.", seat=serializers.IntegerField()),
        _event("deal_over", "The deal ended.", places=_seats(), scores=_seats()),
        _event(
            "answered",
            "Your action that changed nothing public (a window answer).",
            seat=serializers.IntegerField(),
            private_to=_private_to(),
        ),
        _event(
            "trustee",
            "托管 on or off for a seat.",
            seat=serializers.IntegerField(),
            on=serializers.BooleanField(),
        ),
        _event("timeout", "A prompt timed out; the timer acted.", deadline=serializers.CharField()),
        _event("aborted", "A moderator ended the deal, unscored.", reason=serializers.CharField()),
    )
}
GAME_EVENT_TYPES = tuple(GAME_EVENTS)


def game_event_union(**kwargs) -> PolymorphicProxySerializer:
    return PolymorphicProxySerializer(
        component_name="GameEvent",
        serializers=GAME_EVENTS,
        resource_type_field_name="type",
        **kwargs,
    )


class GameEventsQueryInputSerializer(serializers.Serializer):
    """The query of a game's event log, on both roles (games/apis.py, events/logs.py)."""

    after = serializers.IntegerField(min_value=0, max_value=MAX_ID, required=False, default=0)
    wait = serializers.FloatField(min_value=0, required=False, default=0)
