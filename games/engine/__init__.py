"""The Bao Huang (保皇) rule engine: pure Python, no Django (docs/engine.md, docs/rules.md).

    rules = preset("weihai"); state = new_deal(rules, seed=7)
    for seat in to_act(state): legal_actions(state, seat)
    state, events = apply_action(state, seat, action)
"""

from .bots import bot_action
from .cards import ALL_CODES
from .deal import new_deal, opening_events
from .machine import apply_action, legal_actions, to_act
from .outcome import DealOutcome, deal_outcome
from .plays import beats_values, is_bomb, is_valid_play, values_of
from .rules import PRESETS, RuleSet, preset
from .serial import action_from_dict, action_to_dict, from_json, replay, to_json
from .state import PHASES, Action, ActionType, IllegalAction, Phase, State
from .trustee import trustee_action
from .views import aborted_view, bot_view, final_view, public_view, seat_view


def _static_supers(rules: RuleSet) -> frozenset:
    """Marked cards that rank above BJ whatever the deal (laowang 老王)."""
    if rules.guard_card_super and rules.guard_mode == "fixed":
        return frozenset(("SJ*",))
    return frozenset()


def _known_codes(rules: RuleSet, cards) -> list[str]:
    cards = list(cards)
    deck = set(rules.deck)
    if not all(isinstance(c, str) and c in deck for c in cards):
        raise ValueError("unknown card code for this preset")
    return cards


def is_play(rules: RuleSet, cards) -> bool:
    """A valid 一套牌 of this preset's cards (docs/rules.md §1)."""
    cards = _known_codes(rules, cards)
    return bool(cards) and is_valid_play(rules, values_of(cards, _static_supers(rules)))


def beats(rules: RuleSet, answer, table, *, table_is_bomb: bool = False) -> bool:
    """Does play `answer` beat play `table` (docs/rules.md §1 "Beating", §4)? Stateless: the campus 特王,
    which depends on the deal's called card, is judged by apply_action."""
    answer, table = _known_codes(rules, answer), _known_codes(rules, table)
    supers = _static_supers(rules)
    if not (is_play(rules, answer) and is_play(rules, table)) or table_is_bomb:
        return False
    if is_bomb(rules, answer):
        return True
    return beats_values(rules, values_of(answer, supers), values_of(table, supers))


__all__ = [
    "ALL_CODES", "PHASES", "PRESETS", "Action", "IllegalAction", "RuleSet", "State", "action_from_dict",
    "action_to_dict", "apply_action", "beats", "final_view", "from_json", "is_play", "legal_actions",
    "new_deal", "opening_events", "preset", "public_view", "replay", "seat_view", "to_act", "to_json",
    "trustee_action",
    "bot_action", "bot_view",
]
__all__ += ["ActionType", "DealOutcome", "Phase", "aborted_view", "deal_outcome"]
