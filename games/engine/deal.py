"""Dealing a new deal (RULES §2.1–2.3, CONTRACT §1 `new_deal`).

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

from .cards import ALL_CODES, sort_codes
from .exchanges import apply_tribute, buy_threes
from .outcome import DealOutcome
from .rules import RuleSet
from .selection import advance_selection
from .state import State


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
    """The preset's set-aside card when no hand holds it (CONTRACT §1)."""
    card = rules.aside_card
    if card is None:
        return []
    held = sum(hand.count(card) for hand in hands)
    return [card] if held < Counter(rules.deck)[card] else []


def _set_aside_given_emperor_card(rules: RuleSet, hands: list[list[str]], aside: list[str]) -> int | None:
    """wuren: a given hand's `BJ*` is the set-aside card (CONTRACT §1), so it leaves that hand and
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
    the same way (CONTRACT §1 `replay`) and tournaments replaying a fixed deal get the same draw."""
    text = json.dumps([[list(h) for h in hands], list(aside or [])], separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def previous_deal(context: DealOutcome | dict | None) -> tuple[int | None, dict | None]:
    """(next_start_seat, tribute plan) left by the previous deal: a DealOutcome, or a dict with the
    final_view's keys (a final_view itself, or a DealOutcome's JSON form)."""
    if context is None:
        return None, None
    if isinstance(context, DealOutcome):
        return context.next_start_seat, context.tribute.to_json()
    if not isinstance(context, dict):
        raise ValueError("context must be the previous deal's outcome or final_view")
    return context.get("next_start_seat"), context.get("tribute")


def new_deal(rules: RuleSet, *, seed: int | None = None, hands=None, start_seat: int | None = None,
             candidate: int | None = None, context: DealOutcome | dict | None = None, aside=None) -> State:
    """Deal a new deal. Without `start_seat`, a `context` (the previous deal's DealOutcome or
    final_view) supplies its `next_start_seat`, else seat 0 starts (RULES §2.1)."""
    context_start, context_tribute = previous_deal(context)
    if start_seat is None:
        start_seat = context_start if context_start is not None else 0
    if not isinstance(start_seat, int) or isinstance(start_seat, bool) or not 0 <= start_seat < 5:
        raise ValueError("start_seat must be 0..4")
    if candidate is not None and (not isinstance(candidate, int) or not 0 <= candidate < 5):
        raise ValueError("candidate must be 0..4")
    if seed is None:
        if hands is not None:
            if not isinstance(hands, (list, tuple)):
                raise ValueError("hands must be five lists of card codes")
            seed = _scripted_seed(hands, aside)
        else:
            seed = secrets.randbits(63)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError("seed must be an integer")
    rng = random.Random(seed)
    dealt_order: list[tuple[int, str]] = []
    if hands is None:
        deck = list(rules.deck)
        aside_list = list(aside) if aside is not None else ([rules.aside_card] if rules.aside_card else [])
        for code in aside_list:
            deck.remove(code)
        rng.shuffle(deck)
        hand_lists: list[list[str]] = [[] for _ in range(5)]
        for index, code in enumerate(deck):  # one card at a time from the start seat
            seat = (start_seat + index) % 5
            hand_lists[seat].append(code)
            dealt_order.append((seat, code))
    else:
        hand_lists, aside_list = _check_hands(rules, hands, aside)
        if aside is None:
            aside_list = _default_aside(rules, hand_lists)
        given_holder = _set_aside_given_emperor_card(rules, hand_lists, aside_list)
        if candidate is None:
            candidate = given_holder
        dealt_order = [(seat, code) for seat in range(5) for code in hand_lists[seat]]

    events: list[dict] = []
    if context_tribute and rules.tribute != "none":
        apply_tribute(hand_lists, context_tribute, events)
    if rules.buy_three:
        buy_threes(hand_lists, start_seat, events)

    state = object.__new__(State)
    state.rules = rules
    state.seed = seed
    state.start_seat = start_seat
    state.hands = tuple(sort_codes(h) for h in hand_lists)
    state.dealt = state.hands  # as dealt, after the pre-play exchanges (final_view "hands")
    state.aside = tuple(aside_list)
    state.phase = "emperor_selection"
    state.candidate = None
    state.declines = 0
    state.pile = ()
    state.turned_card = None
    state.transferred_by = None
    state.emperor = None
    state.guard = None
    state.solo = None
    state.guard_public = False
    state.solo_public = False
    state.guard_declared = False
    state.rebellion_succeeded = False
    state.called_card = None
    # Marked cards carry information (who holds them), so plays list them apart from plain jokers.
    state.specials = frozenset(c for c in ("BJ*", "SJ*") if c in rules.deck)
    state.window = None
    state.declarations = ()
    state.multiplier = 1
    state.table = None
    state.passed = ()
    state.turn = None
    state.finish_order = ()
    state.places = (None,) * 5
    state.scores = None
    state.tribute_owed = None
    state.next_start_seat = None
    state.log = ()
    state.opening_events = ()

    if rules.candidate_mode == "holder":
        holder = next((s for s in range(5) if "BJ*" in state.hands[s]), None)
        if holder is None:
            raise ValueError("the emperor card BJ* must be in a hand")
        if candidate is not None and candidate != holder:
            raise ValueError("in this preset the candidate is the holder of BJ*")
        state.candidate = holder
    elif rules.candidate_mode == "random":
        holder = next((s for s in range(5) if "BJ*" in state.hands[s]), None)
        drawn = rng.randrange(5)
        state.candidate = candidate if candidate is not None else (holder if holder is not None else drawn)
        state.pile = tuple(c for c in state.aside if c == "BJ*")  # wuren: the candidate gets BJ* at once
        state.aside = tuple(c for c in state.aside if c != "BJ*")
    else:  # turned: laowang
        if candidate is not None:
            own = state.hands[candidate]
            state.candidate = candidate
            state.turned_card = own[rng.randrange(len(own))] if own else None
        else:
            if not dealt_order:
                raise ValueError("no cards were dealt")
            seat, code = dealt_order[rng.randrange(len(dealt_order))]
            state.candidate, state.turned_card = seat, code
        state.pile = state.aside  # the right to the bottom BJ travels with the candidacy
        state.aside = ()
    events.append({"type": "candidate", "seat": state.candidate, "turned_card": state.turned_card}
                  if state.turned_card else {"type": "candidate", "seat": state.candidate})
    advance_selection(state, events)
    state.opening_events = tuple(events)
    return state


def opening_events(state: State) -> list[dict]:
    """Events produced while dealing: tribute, buying a 3, automatic first answers."""
    return [dict(e) for e in state.opening_events]
