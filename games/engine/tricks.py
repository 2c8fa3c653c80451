"""Play (docs/rules.md §1 "Turn flow", "Must-play-last"; §3.5 bombs; §3.6 laowang; §4).

The leader must play; everyone else beats the play on the table or passes. Passing is soft: a
seat that passed plays again as soon as anyone plays. A trick ends when every other seat still
holding cards has passed since the last play; a seat that went out leaves its last play standing,
and if everybody passes on it the next seat after it that still holds cards leads (接风).
"""

from __future__ import annotations

from collections import Counter

from .cards import ALL_CODES, BASE_VALUE, BJ_VALUE, TWO_VALUE, sort_codes
from .plays import (
    JOKER_FLOOR,
    analysed_hands,
    beats_values,
    hand_plays,
    is_bomb,
    is_valid_play,
    note_play,
    played_from,
    values_of,
)
from .settle import settle_if_fixed
from .state import PASS, Action, ActionType, IllegalAction, State, TablePlay

_NO_SUPERS: frozenset = frozenset()
# One frozenset per code, made once: they key the play caches, and a new one per call would be one
# more container for the garbage collector to watch.
_SUPER_OF = {code: frozenset((code,)) for code in ALL_CODES}


def supers_for(state: State, seat: int) -> frozenset:
    """Codes that rank above BJ in this seat's hand: laowang 老王, campus 特王 (not the emperor's copies)."""
    rules = state.rules
    if not rules.guard_card_super:
        return _NO_SUPERS
    if rules.guard_mode == "fixed":
        return _SUPER_OF["SJ*"]
    if state.called_card is not None and seat != state.emperor:
        return _SUPER_OF[state.called_card]
    return _NO_SUPERS


def play_actions(state: State, seat: int) -> list[Action]:
    rules = state.rules
    table = state.table
    supers = supers_for(state, seat)
    hand = state.hands[seat]
    plays = analysed_hands(rules, state.specials, supers).get(hand)
    if plays is None:
        if table is not None and not _may_beat(rules, hand, supers, table):
            return [PASS]
        plays = hand_plays(rules, hand, state.specials, supers)
    if table is None:
        return plays.lead_actions()
    return [PASS] + plays.answers(rules, table.values, table.bomb)


# What `_may_beat` needs of a hand, counted once per hand (and whether the preset has bombs, and
# supers), as a plain tuple (no container the garbage collector keeps watching): jokers (cards
# ranked above BJ included), cards ranked above BJ, BJs (BJ*s included), whether a code is held
# four times that makes a campus bomb (docs/rules.md §3.5), and per_value[v], how many naturals of
# value v. A hand left by a play is counted from the hand before it, less the cards played.
_COUNTS: dict[bool, dict[frozenset, dict[tuple[str, ...], tuple]]] = {False: {}, True: {}}


def _counts(rules, hand: tuple[str, ...], supers: frozenset) -> tuple:
    bombs = rules.bombs
    hands = _COUNTS[bombs].get(supers)
    if hands is None:
        hands = _COUNTS[bombs][supers] = {}
    found = hands.get(hand)
    if found is not None:
        return found
    origin = played_from(rules, hand)
    before = hands.get(origin[0]) if origin is not None else None
    if before is not None and not before[3]:  # a hand without a bomb keeps none when it plays
        jokers, above_big, big, _, per_value = before
        per_value = list(per_value)
        for code in origin[1]:
            if code in supers:
                jokers -= 1
                above_big -= 1
                continue
            value = BASE_VALUE[code]
            if value >= JOKER_FLOOR:
                jokers -= 1
                big -= value == BJ_VALUE
            else:
                per_value[value] -= 1
        found = (jokers, above_big, big, False, tuple(per_value))
    else:
        found = _count(hand, supers, bombs)
    if len(hands) >= 20000:
        hands.clear()
    hands[hand] = found
    return found


def _count(hand: tuple[str, ...], supers: frozenset, bombs: bool) -> tuple:
    per_value = [0] * JOKER_FLOOR
    jokers = above_big = big = 0
    for code in hand:
        if code in supers:
            jokers += 1
            above_big += 1
            continue
        value = BASE_VALUE[code]
        if value >= JOKER_FLOOR:
            jokers += 1
            big += value == BJ_VALUE
        else:
            per_value[value] += 1
    bomb = bombs and any(held >= 4 and 3 < BASE_VALUE[code] < TWO_VALUE and code not in supers
                         for code, held in Counter(hand).items())
    return jokers, above_big, big, bomb, tuple(per_value)


def _may_beat(rules, hand: tuple[str, ...], supers: frozenset, table: TablePlay) -> bool:
    """A cheap necessary condition for holding an answer, so most passes cost no play generation.
    Nothing beats a bomb, and a bomb beats everything else (docs/rules.md §3.5); roasting (§4) answers
    jokers with other shapes, so it goes the full way. Each BJ of the table is met only by a card
    ranked above BJ or, with two-kill, by two BJs (docs/rules.md §1, §3.6), and two-kill then goes
    the full way; else enough jokers, plus naturals of one rank above the table's lowest card (plus
    2s where they attach)."""
    table_values = table.values
    if table.bomb:
        return False
    if rules.roasting and table_values[0] >= JOKER_FLOOR:
        return True
    jokers, above_big, big, bomb, per_value = _counts(rules, hand, supers)
    if bomb:
        return True
    big_on_table = table_values.count(BJ_VALUE)
    if big_on_table:
        if rules.two_kill:
            above_big += big // 2
        if above_big < big_on_table:
            return False
        if rules.two_kill:
            return True
    need = len(table_values)
    lowest = table_values[-1]
    best = max(per_value[lowest + 1:]) if lowest < TWO_VALUE else 0  # one rank above the lowest card
    if rules.twos_attach:
        best += per_value[TWO_VALUE]
    return jokers >= need or (best > 0 and best + jokers >= need)


def apply_play(state: State, seat: int, action: Action, events: list[dict]) -> Action:
    """Apply a play or pass to `state` (a fresh copy); returns the action in the log's canonical
    form (a play's codes sorted high to low)."""
    rules = state.rules
    if action.type == ActionType.PASS:
        if state.table is None:
            raise IllegalAction("cannot_pass_lead", "the leader of a trick must play")
        state.passed = state.passed + (seat,)
        events.append({"type": "pass", "seat": seat})
        _advance(state, seat)
        return PASS
    cards = tuple(action.cards)
    if not cards:
        raise IllegalAction("not_a_play", "a play needs at least one card")
    remaining = list(state.hands[seat])
    for code in cards:
        try:
            remaining.remove(code)
        except ValueError:
            raise IllegalAction("card_not_in_hand", f"{code!r} is not in your hand") from None
    values = values_of(cards, supers_for(state, seat))
    if not is_valid_play(rules, values):
        raise IllegalAction("not_a_play", "a play is cards of one rank with jokers attached")
    if rules.must_last is not None and rules.must_last in values and remaining:
        raise IllegalAction("must_play_last", "these cards may only be played as your last play")
    table = state.table
    bomb = False
    if table is not None:
        bomb = is_bomb(rules, cards) and not supers_for(state, seat) & set(cards)
        if table.bomb or not (bomb or beats_values(rules, values, table.values)):
            raise IllegalAction("does_not_beat", "that play does not beat the play on the table")
    ordered = sort_codes(cards)
    hands = list(state.hands)
    hands[seat] = tuple(remaining)
    note_play(rules, state.hands[seat], hands[seat], cards)
    state.hands = tuple(hands)
    state.table = TablePlay(seat, ordered, values, bomb)
    state.passed = ()
    recorded = action if action.cards == ordered else Action(ActionType.PLAY, ordered)
    event = {"type": "play", "seat": seat, "cards": list(ordered)}
    if bomb:
        event["bomb"] = True
    events.append(event)
    _reveal_by_card(state, seat, cards, events)
    if not remaining:
        state.finish_order = state.finish_order + (seat,)
        places = list(state.places)
        places[seat] = len(state.finish_order)
        state.places = tuple(places)
        events.append({"type": "out", "seat": seat, "place": places[seat]})
        if settle_if_fixed(state, events):
            return recorded
    _advance(state, seat)
    return recorded


def _reveal_by_card(state: State, seat: int, cards: tuple[str, ...], events: list[dict]) -> None:
    """Playing the guard card shows who the guard is; it doubles nothing and opens no window (§1)."""
    if state.solo == "open":
        return
    card = "SJ*" if state.rules.guard_mode == "fixed" else state.called_card
    if card is None or card not in cards:
        return
    if seat == state.guard and not state.guard_public:
        state.guard_public = True
        events.append({"type": "guard_revealed", "seat": seat})
    elif (seat == state.emperor and state.solo == "hidden" and not state.solo_public
          and card not in state.hands[seat]):
        # called-guard presets: public once he has played all four copies (§3.5)
        state.solo_public = True
        events.append({"type": "solo_revealed", "seat": seat})


def _next_holder(state: State, seat: int) -> int:
    hands = state.hands
    for step in range(1, 6):
        candidate = (seat + step) % 5
        if hands[candidate]:
            return candidate
    return seat


def _advance(state: State, seat: int) -> None:
    table = state.table
    if state.hands[table.seat]:
        following = _next_holder(state, seat)
        if following == table.seat:
            _new_trick(state, table.seat)
        else:
            state.turn = following
        return
    holders = [s for s in range(5) if state.hands[s]]
    if all(s in state.passed for s in holders):
        _new_trick(state, _next_holder(state, table.seat))  # 接风
    else:
        state.turn = _next_holder(state, seat)


def _new_trick(state: State, leader: int) -> None:
    state.table = None
    state.passed = ()
    state.turn = leader
