"""Dealing a new deal (docs/rules.md §2.1–2.3, docs/engine.md `new_deal`).

The shuffle is the only randomness of a deal: a seed drawn from a CSPRNG (or given) seeds a
`random.Random` that shuffles the deck and, where a preset needs it, draws the candidate (wuren)
or the turned card (laowang). Seed plus action log replay a deal exactly (§1 "Randomness").
"""

from __future__ import annotations

import hashlib
import json
import random
import secrets
from collections import Counter
from itertools import cycle
from typing import NamedTuple

from .cards import ALL_CODES, sort_codes
from .exchanges import apply_penalty_discards, apply_tribute, buy_threes
from .outcome import DealOutcome
from .rules import RuleSet
from .selection import advance_selection
from .state import State, Tribute


def _check_hands(rules: RuleSet, hands, aside) -> tuple[list[list[str]], list[str]]:
    if not isinstance(hands, (list, tuple)) or len(hands) != 5:
        raise ValueError("hands must be five lists of card codes")
    deck = Counter(rules.deck)
    used: Counter = Counter()
    out = []
    for seat, hand in enumerate(hands):
        if not isinstance(hand, (list, tuple)):
            raise ValueError(f"hand {seat} must be a list of card codes")
        for code in hand:
            if code not in ALL_CODES or code not in deck:
                raise ValueError(f"{code!r} is not a card of preset {rules.name!r}")
        used.update(hand)
        out.append(list(hand))
    aside_list = list(aside or [])
    for code in aside_list:
        if code not in deck:
            raise ValueError(f"{code!r} is not a card of preset {rules.name!r}")
    used.update(aside_list)
    for code, count in used.items():
        if count > deck[code]:
            raise ValueError(f"{code!r} appears {count} times; the {rules.name} deck has {deck[code]}")
    return out, aside_list


def _default_aside(rules: RuleSet, hands: list[list[str]]) -> list[str]:
    """The preset's set-aside card when no hand holds it (docs/engine.md)."""
    card = rules.aside_card
    if card is None:
        return []
    held = sum(hand.count(card) for hand in hands)
    return [card] if held < Counter(rules.deck)[card] else []


def _set_aside_given_emperor_card(rules: RuleSet, hands: list[list[str]], aside: list[str]) -> int | None:
    """wuren: a given hand's `BJ*` is the set-aside card (docs/engine.md), so it leaves that hand and
    travels with the candidacy as a dealt one would; its holder is the candidate unless one is
    fixed. Returns the holder, or None."""
    if rules.candidate_mode != "random" or rules.aside_card != "BJ*":
        return None
    holder = next((seat for seat, hand in enumerate(hands) if "BJ*" in hand), None)
    if holder is not None:
        hands[holder].remove("BJ*")
        aside.append("BJ*")
    return holder


def _scripted_seed(hands, aside) -> int:
    """A deal from given hands without a seed still needs one for its draws (wuren's candidate,
    laowang's turned card). **D:** it is derived from the hands, so the same setup always replays
    the same way (docs/engine.md `replay`) and tournaments replaying a fixed deal get the same draw."""
    text = json.dumps([[list(h) for h in hands], list(aside or [])], separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def previous_deal(context: DealOutcome | dict | None) -> tuple[int | None, Tribute | None]:
    """(next_start_seat, tribute owed) left by the previous deal: a DealOutcome, or a dict with the
    final_view's keys (a final_view itself, or a DealOutcome's JSON form)."""
    if context is None:
        return None, None
    if isinstance(context, DealOutcome):
        return context.next_start_seat, context.tribute
    if not isinstance(context, dict):
        raise ValueError("context must be the previous deal's outcome or final_view")
    tribute = context.get("tribute")
    return context.get("next_start_seat"), Tribute.from_json(tribute) if tribute else None


class Dealing(NamedTuple):
    """The cards as they left the dealer: five hands, the set-aside cards, the order the cards were
    dealt in (laowang turns one of them), and the seat whose given hand held wuren's BJ*."""

    hands: list[list[str]]
    aside: list[str]
    order: list[tuple[int, str]]
    emperor_card_holder: int | None = None


def new_deal(rules: RuleSet, *, seed: int | None = None, hands=None, start_seat: int | None = None,
             candidate: int | None = None, context: DealOutcome | dict | None = None, aside=None,
             discards=()) -> State:
    """Deal a new deal. Without `start_seat`, a `context` (the previous deal's DealOutcome or
    final_view) supplies its `next_start_seat`, else seat 0 starts (docs/rules.md §2.1). `discards`: seats
    that discard a card before play as a penalty (docs/rules.md §3.6), one card per entry."""
    discards = _checked_discards(discards)
    previous_start, tribute_owed = previous_deal(context)
    start_seat = _checked_start_seat(start_seat if start_seat is not None else previous_start)
    if candidate is not None and (not isinstance(candidate, int) or not 0 <= candidate < 5):
        raise ValueError("candidate must be 0..4")
    seed = _checked_seed(seed, hands, aside)
    rng = random.Random(seed)
    if hands is None:
        dealing = _shuffle_and_deal(rules, rng, start_seat, aside)
    else:
        dealing = _given_deal(rules, hands, aside)
    events: list[dict] = []
    if tribute_owed is not None and rules.tribute != "none":
        apply_tribute(dealing.hands, tribute_owed, events)
    if rules.buy_three:
        buy_threes(dealing.hands, start_seat, events)
    discarded = apply_penalty_discards(dealing.hands, discards, events)
    state = _opening_state(rules, seed, start_seat, dealing)
    state.discards = discarded
    _choose_first_candidate(state, rng, candidate, dealing, events)
    advance_selection(state, events)
    state.opening_events = tuple(events)
    return state


# More penalty discards than this in one deal is a mistake, not a ruling.
MAX_DISCARDS = 10


def _checked_discards(discards) -> tuple[int, ...]:
    if discards is None:
        return ()
    if not isinstance(discards, (list, tuple)) or len(discards) > MAX_DISCARDS:
        raise ValueError(f"discards must be a list of at most {MAX_DISCARDS} seats")
    for seat in discards:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 5:
            raise ValueError("discards must name seats 0..4")
    return tuple(discards)


def _checked_start_seat(start_seat) -> int:
    if start_seat is None:
        return 0
    if not isinstance(start_seat, int) or isinstance(start_seat, bool) or not 0 <= start_seat < 5:
        raise ValueError("start_seat must be 0..4")
    return start_seat


def _checked_seed(seed, hands, aside) -> int:
    """The given seed, else one derived from given hands (see _scripted_seed), else a fresh secret one."""
    if seed is None:
        if hands is None:
            return secrets.randbits(63)
        if not isinstance(hands, (list, tuple)):
            raise ValueError("hands must be five lists of card codes")
        seed = _scripted_seed(hands, aside)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError("seed must be an integer")
    return seed


def _shuffle_and_deal(rules: RuleSet, rng: random.Random, start_seat: int, aside) -> Dealing:
    """Set the aside cards apart, shuffle, deal one card at a time from the start seat (docs/rules.md
    §2.1)."""
    deck = list(rules.deck)
    aside_cards = list(aside) if aside is not None else ([rules.aside_card] if rules.aside_card else [])
    for code in aside_cards:
        deck.remove(code)
    rng.shuffle(deck)
    # Card i goes to seat start_seat + i (mod 5): each hand is every fifth card of the deck.
    hands = [deck[(seat - start_seat) % 5::5] for seat in range(5)]
    order = list(zip(cycle(seat % 5 for seat in range(start_seat, start_seat + 5)), deck))
    return Dealing(hands, aside_cards, order)


def _given_deal(rules: RuleSet, hands, aside) -> Dealing:
    hand_lists, aside_cards = _check_hands(rules, hands, aside)
    if aside is None:
        aside_cards = _default_aside(rules, hand_lists)
    holder = _set_aside_given_emperor_card(rules, hand_lists, aside_cards)
    order = [(seat, code) for seat in range(5) for code in hand_lists[seat]]
    return Dealing(hand_lists, aside_cards, order, holder)


def _opening_state(rules: RuleSet, seed: int, start_seat: int, dealing: Dealing) -> State:
    hands = tuple(sort_codes(hand) for hand in dealing.hands)
    return State(
        rules=rules, seed=seed, start_seat=start_seat, hands=hands, dealt=hands, aside=tuple(dealing.aside),
        specials=frozenset(code for code in ("BJ*", "SJ*") if code in rules.deck),
    )


def _choose_first_candidate(state: State, rng: random.Random, candidate: int | None, dealing: Dealing,
                            events: list[dict]) -> None:
    """The first candidate, by the preset's `candidate_mode` (docs/rules.md §3)."""
    mode = state.rules.candidate_mode
    if mode == "holder":
        _candidate_holds_emperor_card(state, candidate)
    elif mode == "random":
        _candidate_drawn(state, rng, candidate, dealing.emperor_card_holder)
    else:
        _candidate_turned(state, rng, candidate, dealing.order)
    event = {"type": "candidate", "seat": state.candidate}
    if state.turned_card:
        event["turned_card"] = state.turned_card
    events.append(event)


def _candidate_holds_emperor_card(state: State, candidate: int | None) -> None:
    holder = next((seat for seat in range(5) if "BJ*" in state.hands[seat]), None)
    if holder is None:
        raise ValueError("the emperor card BJ* must be in a hand")
    if candidate is not None and candidate != holder:
        raise ValueError("in this preset the candidate is the holder of BJ*")
    state.candidate = holder


def _candidate_drawn(state: State, rng: random.Random, candidate: int | None,
                     given_holder: int | None) -> None:
    """wuren: a random seat (drawn even when fixed, so a seed replays alike) receives BJ* at once."""
    drawn = rng.randrange(5)
    if candidate is None:
        candidate = given_holder if given_holder is not None else drawn
    state.candidate = candidate
    state.pile = tuple(code for code in state.aside if code == "BJ*")
    state.aside = tuple(code for code in state.aside if code != "BJ*")


def _candidate_turned(state: State, rng: random.Random, candidate: int | None,
                      dealt_order: list[tuple[int, str]]) -> None:
    """laowang: the receiver of a card turned at random; the right to the bottom BJ goes with him."""
    if candidate is not None:
        own = state.hands[candidate]
        state.candidate = candidate
        state.turned_card = own[rng.randrange(len(own))] if own else None
    else:
        if not dealt_order:
            raise ValueError("no cards were dealt")
        state.candidate, state.turned_card = dealt_order[rng.randrange(len(dealt_order))]
    state.pile = state.aside
    state.aside = ()


def opening_events(state: State) -> list[dict]:
    """Events produced while dealing: tribute, buying a 3, automatic first answers."""
    return [dict(e) for e in state.opening_events]
