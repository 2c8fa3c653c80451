"""docs/engine.md (end of the section): `legal_actions` lists every play the rules allow up to
interchangeable codes, and a play `apply_action` accepts is always listed in that sense. The called
card (docs/rules.md §3.3–3.5) carries information, so plays differing in how many of its copies they hold
are different plays — and each of them must be listed, not only some.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import product

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from games import engine
from games.engine import Action, IllegalAction

from .helpers import ACCEPT, ENDED, PRESET_NAMES, C, P, act, deal, expected_deck, run, stay_through_windows

JOKER_CODES = ("BJ", "SJ", "BJ*", "SJ*")


def _emperor_facing(preset, emperor_hand, called, leader_hand, lead, others, **deal_kwargs):
    """Seat 0 is emperor and calls `called`; seat 1 takes the first trick with BJ and leads `lead`;
    seats 2-4 pass, so seat 0 is to answer `lead`."""
    hands = [emperor_hand, ["BJ"] + leader_hand, *others]
    state = act(deal(preset, hands, **deal_kwargs), 0, ACCEPT)
    state = stay_through_windows(act(state, 0, C(called)))
    assert state.phase == "play" and state.called_card == called
    state = run(state, [(0, "5S"), (1, "BJ"), (2, "pass"), (3, "pass"), (4, "pass"), (0, "pass"),
                        (1, lead), (2, "pass"), (3, "pass"), (4, "pass")])
    assert state.turn == 0 and state.table.cards == tuple(lead.split())
    return state


def _listed(state, seat):
    return [sorted(a.cards) for a in engine.legal_actions(state, seat) if a.type == "play"]


def _accepted(state, seat, cards):
    engine.apply_action(state, seat, P(cards))  # raises IllegalAction if refused
    return sorted(cards.split())


def test_wuren_triple_with_two_plain_copies_and_one_called_copy_is_listed():
    """docs/rules.md §3.4 called guard; the issue's case: 8C called, the emperor holds 8C 8C 8C 8D 8H."""
    state = _emperor_facing(
        "wuren", ["5S", "8C", "8C", "8C", "8D", "8H", "KS"], "8C", ["4S", "4S", "4S", "7S"], "4S 4S 4S",
        [["8C", "9S", "9H"], ["9C", "9D"], ["TS", "TH"]], candidate=0)
    listed = _listed(state, 0)
    for cards in ("8C 8C 8C", "8D 8C 8C", "8D 8H 8C"):
        assert _accepted(state, 0, cards) in listed, cards


def test_campus_joker_with_two_plain_copies_of_the_called_rank_is_listed():
    """docs/rules.md §3.5: the emperor's own copies of the called card are plain in value but not in
    information; `BJ* 8H 8H` is a different play from `BJ* 8H 8C` and `BJ* 8C 8C`."""
    state = _emperor_facing(
        "campus", ["BJ*", "5S", "8C", "8C", "8C", "8H", "8H", "KS"], "8C", ["SJ", "7S", "7S", "8S", "QS"],
        "SJ 7S 7S", [["8C", "9S", "9H"], ["8D", "9C"], ["8S", "TS"]])
    listed = _listed(state, 0)
    for cards in ("BJ* 8C 8C", "BJ* 8H 8C", "BJ* 8H 8H"):
        assert _accepted(state, 0, cards) in listed, cards


def test_wuren_plain_single_of_the_called_rank_is_listed():
    """A plain `TS` is another play than a called `TD` (the issue's single-card case)."""
    state = _emperor_facing(
        "wuren", ["5S", "TD", "TD", "TD", "TS", "KS"], "TD", ["9S", "4S"], "9S",
        [["TD", "9H", "9H"], ["9C", "9D"], ["QS", "QH"]], candidate=0)
    listed = _listed(state, 0)
    for cards in ("TD", "TS"):
        assert _accepted(state, 0, cards) in listed, cards


def test_campus_four_of_a_kind_that_is_not_a_bomb_is_listed_beside_the_bomb():
    """docs/rules.md §3.5: four identical codes are a bomb, four mixed suits a set; a bomb's identical codes
    carry information (docs/engine.md), so against a led four-card set both plays are listed."""
    hands = [["BJ*", "5S", "9H", "9H", "9H", "KS"], ["BJ", "7S", "7S", "7H", "7H", "9S", "QS"],
             ["JH", "JH", "JH", "JH", "JS", "9C", "QH"], ["9D", "QC"], ["9S", "QD"]]
    state = stay_through_windows(act(act(deal("campus", hands), 0, ACCEPT), 0, C("9H")))
    state = run(state, [(0, "5S"), (1, "BJ"), (2, "pass"), (3, "pass"), (4, "pass"), (0, "pass"),
                        (1, "7S 7S 7H 7H")])
    assert state.turn == 2 and state.table.bomb is False
    listed = _listed(state, 2)
    for cards in ("JH JH JH JH", "JH JH JH JS"):
        assert _accepted(state, 2, cards) in listed, cards


def _campus_bomb_holder_to_lead():
    """Seat 2 holds `9C` and four `9D` (a campus bomb's identical codes, docs/rules.md §3.5) and leads."""
    hands = [["BJ*", "5S", "9H", "9H", "9H", "KS"], ["BJ", "7S", "QS", "9C"],
             ["9D", "9D", "9D", "9D", "9C", "JS", "QH", "8S"], ["9S", "QC"], ["9S", "QD"]]
    state = stay_through_windows(act(act(deal("campus", hands), 0, ACCEPT), 0, C("9H")))
    state = run(state, [(0, "5S"), (1, "BJ"), (2, "pass"), (3, "pass"), (4, "pass"), (0, "pass"), (1, "7S"),
                        (2, "QH"), (3, "pass"), (4, "pass"), (0, "pass"), (1, "pass")])
    assert state.turn == 2 and state.table is None
    return state


def test_campus_bomb_codes_led_are_listed_beside_the_mixed_set():
    """The issue's case: led on an empty table four `9D` are only a set, but they are a play of four
    identical codes, another play than `9C 9D 9D 9D` (docs/engine.md), so both are listed."""
    state = _campus_bomb_holder_to_lead()
    listed = _listed(state, 2)
    for cards in ("9D 9D 9D 9D", "9C 9D 9D 9D", "9C 9D 9D 9D 9D"):
        assert _accepted(state, 2, cards) in listed, cards


def test_campus_bomb_codes_are_informative_in_smaller_plays_too():
    """`9C` keeps the bomb, `9D` breaks it: with four identical codes in hand the two singles (and the
    pairs `9C 9D` / `9D 9D`) are different plays."""
    state = _campus_bomb_holder_to_lead()
    listed = _listed(state, 2)
    for cards in ("9C", "9D", "9C 9D", "9D 9D"):
        assert _accepted(state, 2, cards) in listed, cards


# ---------------------------------------------------------------- the property, for every preset

CALLED_GUARD = ("lianzhong_classic", "wuren", "campus")
HAND_SIZE = 7


def _small_hands(name, rnd):
    """Five short hands from few ranks and suits of the preset's deck (docs/rules.md §3), so that equal
    ranks, called-card copies and marked cards meet often; a called-guard candidate gets a triple."""
    deck = expected_deck(name)
    ranks = rnd.sample(sorted({c[0] for c in deck if c not in JOKER_CODES}), 5)
    suits = rnd.sample("SHCD", 2)
    pool = [c for c, n in sorted(deck.items()) for _ in range(n)
            if c in ("BJ", "SJ") or (c not in JOKER_CODES and c[0] in ranks and c[1] in suits)]
    hands = [[] for _ in range(5)]
    candidate = rnd.randrange(5)
    if name != "wuren" and "BJ*" in deck:  # wuren's BJ* is set aside and handed to the candidate
        hands[candidate].append("BJ*")
    if "SJ*" in deck:
        hands[rnd.randrange(5)].append("SJ*")
    if name in CALLED_GUARD:
        triple = rnd.choice(sorted({c for c in pool if c[0] not in "32" and c not in ("BJ", "SJ")}))
        same_rank = [c for c in pool if c[0] == triple[0] and c != triple]
        for code in [triple] * 3 + rnd.sample(same_rank, min(len(same_rank), rnd.randrange(1, 3))):
            pool.remove(code)
            hands[candidate].append(code)
        if name == "campus":  # a call needs the rank in every other hand (docs/rules.md §3.5)
            spare = Counter(deck) - Counter(pool) - Counter(c for h in hands for c in h)
            for seat in range(5):
                if seat != candidate:
                    code = next(c for c in sorted(spare) if c[0] == triple[0] and spare[c] > 0)
                    spare[code] -= 1
                    hands[seat].append(code)
    if name == "campus" and rnd.random() < 0.7:
        # Four identical codes and another of their rank (a campus bomb, docs/rules.md §3.5), often in
        # the candidate's hand beside BJ* and the called triple, so every informative code meets.
        spare = Counter(deck) - Counter(c for h in hands for c in h)  # the pool's cards included
        fours = sorted(c for c, n in spare.items() if n >= 4 and c not in JOKER_CODES and c[0] not in "32")
        code = rnd.choice(fours)
        others = sorted(c for c in spare if c[0] == code[0] and c != code and spare[c] > 0)
        seat = candidate if rnd.random() < 0.5 else rnd.randrange(5)
        for card in [code] * 4 + rnd.sample(others, min(len(others), rnd.randrange(1, 3))):
            if card in pool:
                pool.remove(card)
            hands[seat].append(card)
    rnd.shuffle(pool)
    for hand in hands:
        while len(hand) < HAND_SIZE:
            hand.append(pool.pop())
    return hands, candidate


def _to_play(state, rnd):
    """Random legal answers up to the play phase, mostly accepting the role."""
    while state.phase not in ENDED and state.phase != "play":
        seat = rnd.choice(engine.to_act(state))
        legal = engine.legal_actions(state, seat)
        accept = ACCEPT in legal and rnd.random() < 0.8
        state, _ = engine.apply_action(state, seat, ACCEPT if accept else rnd.choice(legal))
    return state


def _interchangeable_key(codes, informative, facing_a_play):
    """A play up to interchangeable codes (docs/engine.md): informative codes by code, the rest by
    rank; four identical codes answering a play are a bomb (docs/rules.md §3.5), another play than a set."""
    plain = sorted(c if c in informative else (c if c in ("BJ", "SJ") else c[0]) for c in codes)
    bomb = facing_a_play and len(codes) == 4 and len(set(codes)) == 1 and codes[0] not in JOKER_CODES \
        and codes[0][0] not in "32"
    return (bomb, tuple(plain))


def _sub_multisets(hand, bound):
    counts = sorted(Counter(hand).items())
    for picks in product(*(range(n + 1) for _, n in counts)):
        cards = tuple(c for (c, _), k in zip(counts, picks) for _ in range(k))
        if 0 < len(cards) <= bound:
            yield cards


def _bomb_codes(name, hand):
    """Codes held four times or more where they form a campus bomb (docs/rules.md §3.5)."""
    if name != "campus":
        return set()
    return {c for c, n in Counter(hand).items() if n >= 4 and c not in JOKER_CODES and c[0] not in "32"}


def _check_listing(name, state, seat):
    view = engine.seat_view(state, seat)
    # Every information-carrying code of docs/engine.md together: the marked cards, the called card,
    # a campus bomb's identical codes.
    informative = {"BJ*", "SJ*"} | ({view["called_card"]} if view["called_card"] else set()) \
        | _bomb_codes(name, view["hand"])
    facing = view["table"] is not None
    listed = {_interchangeable_key(a.cards, informative, facing)
              for a in engine.legal_actions(state, seat) if a.type == "play"}
    accepted = set()
    # Every sub-multiset of the whole hand: a campus bomb dealt on top of the short hand (with a bought
    # 3) makes plays longer than the dealt hand, which a smaller bound would list but never try.
    for cards in _sub_multisets(view["hand"], len(view["hand"])):
        try:
            engine.apply_action(state, seat, Action("play", cards))
        except IllegalAction:
            continue
        accepted.add(_interchangeable_key(cards, informative, facing))
    assert accepted - listed == set(), f"accepted but not listed: {sorted(accepted - listed)}"
    assert listed - accepted == set(), f"listed but refused: {sorted(listed - accepted)}"


def test_a_campus_playout_whose_plays_outgrow_the_dealt_hand_is_checked_whole():
    """A campus seed whose bomb makes an 11-card hand (plays of nine to twelve 10s): every one of
    those plays is tried, not only those up to the dealt hand's size."""
    assert _playout_checked("campus", 2034831019)


@pytest.mark.parametrize("name", PRESET_NAMES)
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_every_play_apply_action_accepts_is_listed_up_to_interchangeable_codes(name, seed):
    """At every turn of a random playout from short random hands, brute force over the hand's
    sub-multisets: what apply_action accepts and what legal_actions lists are the same plays."""
    assume(_playout_checked(name, seed))


def _playout_checked(name: str, seed: int) -> bool:
    """The check above for one seed; False when the deal never reaches its play phase."""
    rnd = random.Random(seed)
    hands, candidate = _small_hands(name, rnd)
    state = engine.new_deal(engine.preset(name), seed=seed, hands=hands,
                            candidate=candidate if name == "wuren" else None)
    state = _to_play(state, rnd)
    if state.phase != "play":
        return False
    while state.phase == "play":
        seat = state.turn
        _check_listing(name, state, seat)
        state, _ = engine.apply_action(state, seat, rnd.choice(engine.legal_actions(state, seat)))
    return True
