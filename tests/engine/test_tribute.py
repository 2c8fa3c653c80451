"""Tribute and multi-deal context: docs/rules.md §2.1 start seats, §2.2 pre-play exchanges, §3.4 wuren 进贡,
§3.6 laowang tribute in 2s, §3.7 pagat tribute; presets without tribute owe none."""

from __future__ import annotations

from collections import Counter

import pytest

from games import engine

from .helpers import ACCEPT, act, deal, hand, pview, tribute_map
from .scripts import (
    auto_play,
    called_guard_hands,
    finish,
    fixed_guard_hands,
    solo_hands,
    start_called,
    start_fixed,
)
from .test_scoring import campus_2v3, laowang_hands


def _wuren_final(emperor, guard, order, *, solo=False, show=False):
    hands, prelude, chain = called_guard_hands(emperor, guard, order, bj=False, solo=solo)
    state = start_called("wuren", hands, emperor, "8H", solo=show, candidate=emperor)
    state = finish(auto_play(state, prelude), order, chain)
    assert state.phase == "over"
    return engine.final_view(state)


# ---------------------------------------------------------------- §3.4 wuren

@pytest.mark.parametrize("emperor,guard,order,gives,takes", [
    (0, 1, [0, 2, 3, 1, 4], {2: 1, 3: 1, 4: 1}, {0: 2, 1: 1}),
    (0, 1, [2, 3, 4, 0, 1], {0: 2, 1: 1}, {2: 1, 3: 1, 4: 1}),
    (3, 0, [3, 1, 2, 4, 0], {}, {}),
], ids=["emperor_side_won", "commoners_won", "draw_gives_none"])
def test_s34_wuren_tribute_counts(emperor, guard, order, gives, takes):
    final = _wuren_final(emperor, guard, order)
    assert tribute_map(final, "gives") == gives
    assert tribute_map(final, "takes") == takes


@pytest.mark.parametrize("order,show,gives,takes", [
    ([0, 1, 2, 3, 4], False, {1: 1, 2: 1, 3: 1, 4: 1}, {0: 4}),
    ([1, 2, 3, 4, 0], False, {0: 4}, {1: 1, 2: 1, 3: 1, 4: 1}),
    ([0, 1, 2, 3, 4], True, {1: 2, 2: 2, 3: 2, 4: 2}, {0: 8}),
], ids=["hidden_solo_won", "hidden_solo_lost", "open_solo_doubles_counts"])
def test_s34_wuren_solo_tribute(order, show, gives, takes):
    final = _wuren_final(0, None, order, solo=True, show=show)
    assert tribute_map(final, "gives") == gives
    assert tribute_map(final, "takes") == takes


def test_s34_wuren_next_deal_guard_takes_the_middle_card_emperor_the_other_two():
    final = _wuren_final(0, 1, [0, 2, 3, 1, 4])
    hands = ["9H 9H 9H 5C", "9H 4C", "BJ 9S", "AS 8S", "KS 7S"]
    state = deal("wuren", hands, candidate=0, context=final)
    assert Counter(hand(state, 0)) == Counter(["9H", "9H", "9H", "5C", "BJ", "KS"])
    assert Counter(hand(state, 1)) == Counter(["9H", "4C", "AS"])
    assert hand(state, 2) == ["9S"], "jokers are included in wuren tribute (最大牌)"
    assert hand(state, 3) == ["8S"]
    assert hand(state, 4) == ["7S"]


def test_s34_wuren_next_deal_commoners_take_in_finishing_order_highest_first():
    final = _wuren_final(0, 1, [3, 4, 2, 0, 1])
    hands = ["BJ AS 9H 9H 9H 4C", "KS 5C", "9S", "8S", "7S"]
    state = deal("wuren", hands, candidate=0, context=final)
    assert Counter(hand(state, 0)) == Counter(["9H", "9H", "9H", "4C"])
    assert hand(state, 1) == ["5C"]
    assert Counter(hand(state, 3)) == Counter(["8S", "BJ"])
    assert Counter(hand(state, 4)) == Counter(["7S", "AS"])
    assert Counter(hand(state, 2)) == Counter(["9S", "KS"])


def test_s22_tribute_cards_are_private_to_giver_and_receiver_counts_public():
    final = _wuren_final(0, 1, [0, 2, 3, 1, 4])
    hands = ["9H 9H 9H 5C", "9H 4C", "BJ 9S", "AS 8S", "KS 7S"]
    state = deal("wuren", hands, candidate=0, context=final)
    events = engine.opening_events(state)
    public = [e for e in events if e["type"] == "tribute"]
    private = [e for e in events if e["type"] == "tribute_cards"]
    assert public, "this deal hands a tribute over"
    # The count is public: one event per giver and taker, seen by everyone, naming no card.
    assert all("private_to" not in e and "cards" not in e and "card" not in e for e in public)
    assert [(e["seat"], e["to"], e["count"]) for e in public] == [
        (e["seat"], e["to"], len(e["cards"])) for e in private
    ]
    # The cards only to giver and receiver.
    assert all(e["private_to"] == sorted({e["seat"], e["to"]}) for e in private)
    for event in events:
        if "cards" in event or "card" in event:
            assert event.get("private_to"), event
            assert len(event["private_to"]) <= 2
    # Everyone's counts already show the cards handed over.
    assert pview(state)["counts"] == [len(hand(state, seat)) for seat in range(5)]
    before = [len(h.split()) for h in hands]
    moved = Counter()
    for e in public:
        moved[e["seat"]] -= e["count"]
        moved[e["to"]] += e["count"]
    assert pview(state)["counts"] == [before[seat] + moved[seat] for seat in range(5)]


def test_s34_hands_in_final_view_are_after_tribute():
    final = _wuren_final(0, 1, [0, 2, 3, 1, 4])
    hands = ["9H 9H 9H 5C", "9H 4C", "BJ 9S", "AS 8S", "KS 7S"]
    state = act(deal("wuren", hands, candidate=0, context=final), 0, ACCEPT)
    state = act(state, 0, engine.Action("call", card="9H"))
    # play out with trustee to reach the end
    for _ in range(200):
        if state.phase in ("over", "void"):
            break
        seat = engine.to_act(state)[0]
        state = act(state, seat, engine.trustee_action(state, seat))
    dealt = engine.final_view(state)["hands"]
    assert Counter(dealt[1]) == Counter(["9H", "4C", "AS"])
    assert dealt[2] == ["9S"]


# ---------------------------------------------------------------- §3.7 pagat

@pytest.mark.parametrize("order,gives,takes", [
    ([0, 1, 2, 3, 4], {2: 1, 3: 1, 4: 1}, {0: 2, 1: 1}),
    ([2, 3, 4, 0, 1], {0: 2, 1: 1}, {2: 1, 3: 1, 4: 1}),
    ([0, 2, 3, 4, 1], {}, {}),
], ids=["emperor_side_won", "emperor_side_lost", "draw"])
def test_s37_pagat_tribute_counts(order, gives, takes):
    hands, prelude, chain = fixed_guard_hands(0, 1, order)
    state = finish(auto_play(start_fixed("pagat", hands, 0), prelude), order, chain)
    final = engine.final_view(state)
    assert tribute_map(final, "gives") == gives
    assert tribute_map(final, "takes") == takes


@pytest.mark.parametrize("order,how,gives,takes", [
    ([0, 1, 2, 3, 4], ACCEPT, {1: 1, 2: 1, 3: 1, 4: 1}, {0: 4}),
    ([1, 2, 3, 0, 4], ACCEPT, {0: 4}, {1: 1, 2: 1, 3: 1, 4: 1}),
    ([1, 0, 2, 3, 4], ACCEPT, {}, {}),
    ([2, 0, 1, 3, 4], engine.Action("solo"), {0: 4}, {1: 1, 2: 1, 3: 1, 4: 1}),
], ids=["hidden_solo_won", "hidden_solo_lost", "hidden_solo_2nd_draw", "declared_solo_lost"])
def test_s37_pagat_solo_tribute(order, how, gives, takes):
    hands, prelude, chain = solo_hands(0, order)
    state = finish(auto_play(start_fixed("pagat", hands, 0, how=how), prelude), order, chain)
    final = engine.final_view(state)
    assert tribute_map(final, "gives") == gives
    assert tribute_map(final, "takes") == takes


def test_s37_pagat_next_deal_losers_give_their_highest_non_joker():
    hands, prelude, chain = fixed_guard_hands(0, 1, [0, 1, 2, 3, 4])
    state = finish(auto_play(start_fixed("pagat", hands, 0), prelude), [0, 1, 2, 3, 4], chain)
    final = engine.final_view(state)
    nxt = ["BJ* 7H", "SJ* 8H", "SJ AS 7S", "BJ 2C 8C", "KD 9D"]
    state = deal("pagat", nxt, context=final)
    assert Counter(hand(state, 2)) == Counter(["SJ", "7S"]), "no joker in pagat tribute"
    assert Counter(hand(state, 3)) == Counter(["BJ", "8C"])
    assert hand(state, 4) == ["9D"]
    got0 = Counter(hand(state, 0)) - Counter(["BJ*", "7H"])
    got1 = Counter(hand(state, 1)) - Counter(["SJ*", "8H"])
    assert sum(got0.values()) == 2 and sum(got1.values()) == 1
    assert got0 + got1 == Counter(["AS", "2C", "KD"])
    assert got0["2C"] == 1, "the emperor (1st) takes first, highest first"


def test_s37_pagat_start_seat_moves_one_seat_each_deal():
    hands, prelude, chain = fixed_guard_hands(0, 1, [0, 1, 2, 3, 4])
    state = finish(auto_play(start_fixed("pagat", hands, 0, start_seat=3), prelude), [0, 1, 2, 3, 4], chain)
    assert engine.final_view(state)["next_start_seat"] == 4


# ---------------------------------------------------------------- §3.6 laowang

@pytest.mark.parametrize("order,gives,takes", [
    ([0, 1, 2, 3, 4], {2: 2, 3: 2, 4: 2}, {0: 4, 1: 2}),
    ([0, 2, 1, 3, 4], {2: 1, 3: 1, 4: 1}, {0: 2, 1: 1}),
    ([2, 0, 3, 4, 1], {0: 2, 1: 1}, {2: 1, 3: 1, 4: 1}),
    ([2, 3, 4, 0, 1], {0: 4, 1: 2}, {2: 2, 3: 2, 4: 2}),
], ids=["1+2", "1+3", "2+5", "4+5"])
def test_s36_laowang_tribute_counts(order, gives, takes):
    hands, prelude, chain = laowang_hands(0, 1, order)
    state = act(deal("laowang", hands, candidate=0), 0, ACCEPT)
    state = finish(auto_play(state, prelude), order, chain)
    final = engine.final_view(state)
    assert tribute_map(final, "gives") == gives
    assert tribute_map(final, "takes") == takes


def test_s36_laowang_next_deal_givers_give_2s_else_highest_non_joker():
    hands, prelude, chain = laowang_hands(0, 1, [0, 1, 2, 3, 4])
    state = act(deal("laowang", hands, candidate=0), 0, ACCEPT)
    final = engine.final_view(finish(auto_play(state, prelude), [0, 1, 2, 3, 4], chain))
    nxt = ["3S", "4S", "BJ 2H 2D 5S", "SJ AH KH 5C", "2S QH JH 5D"]
    state = deal("laowang", nxt, candidate=0, context=final)
    assert Counter(hand(state, 2)) == Counter(["BJ", "5S"])
    assert Counter(hand(state, 3)) == Counter(["SJ", "5C"]), "不进王: jokers are never given"
    assert Counter(hand(state, 4)) == Counter(["JH", "5D"])
    got0 = Counter(hand(state, 0)) - Counter(["3S"])
    got1 = Counter(hand(state, 1)) - Counter(["4S"])
    assert sum(got0.values()) == 4 and sum(got1.values()) == 2
    assert got0 + got1 == Counter(["2H", "2D", "AH", "KH", "2S", "QH"])
    # one card at a time in finishing order, highest first: the emperor (1st) takes the first 2
    assert got0["2H"] + got0["2D"] + got0["2S"] >= 2


# ---------------------------------------------------------------- no tribute

def test_s3_weihai_lianzhong_campus_owe_no_tribute():
    for preset in ("weihai", "lianzhong_simple"):
        hands, prelude, chain = fixed_guard_hands(0, 1, [0, 1, 2, 3, 4])
        state = finish(auto_play(start_fixed(preset, hands, 0), prelude), [0, 1, 2, 3, 4], chain)
        final = engine.final_view(state)
        assert tribute_map(final, "gives") == {} and tribute_map(final, "takes") == {}
    hands, prelude, chain = campus_2v3([0, 1, 2, 3, 4])
    state = start_called("campus", hands, 0, "9H")
    final = engine.final_view(finish(auto_play(state, prelude), [0, 1, 2, 3, 4], chain))
    assert tribute_map(final, "gives") == {} and tribute_map(final, "takes") == {}


@pytest.mark.parametrize("preset,emperor", [("weihai", 2), ("lianzhong_simple", 3)])
def test_s21_next_deal_starts_at_the_previous_emperor(preset, emperor):
    guard = (emperor + 1) % 5
    order = [emperor, guard] + [s for s in range(5) if s not in (emperor, guard)]
    hands, prelude, chain = fixed_guard_hands(emperor, guard, order)
    state = finish(auto_play(start_fixed(preset, hands, emperor), prelude), order, chain)
    assert engine.final_view(state)["next_start_seat"] == emperor


def test_s21_context_start_seat_deals_extra_cards_to_the_first_seats():
    hands, prelude, chain = fixed_guard_hands(3, 4, [3, 4, 0, 1, 2])
    state = finish(auto_play(start_fixed("lianzhong_simple", hands, 3), prelude), [3, 4, 0, 1, 2], chain)
    final = engine.final_view(state)
    assert final["next_start_seat"] == 3
    # the context carries next_start_seat (docs/engine.md): dealing starts at seat 3
    nxt = engine.new_deal(engine.preset("lianzhong_simple"), seed=11, context=final)
    assert pview(nxt)["counts"] == [34, 33, 33, 34, 34]


# ---------------------------------------------------------------- tribute applied to the next deal (property)

from hypothesis import HealthCheck, Phase, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from .helpers import ordered_value  # noqa: E402
from .test_end_of_deal import random_deal  # noqa: E402


def _rank_bag(cards):
    return Counter(ordered_value(c) for c in cards)


def _expected_after_tribute(name, before, final):
    """Hands after the tribute of `final`, by card value (suits of equal cards may be chosen freely)."""
    gives = {int(s): int(n) for s, n in final["tribute"]["gives"] if n}
    takes = {int(s): int(n) for s, n in final["tribute"]["takes"] if n}
    hands = [sorted(h, key=ordered_value, reverse=True) for h in before]
    pool = []
    for seat, n in gives.items():
        allowed = [c for c in hands[seat] if name == "wuren" or not c.startswith(("BJ", "SJ"))]
        given = allowed[:n]
        for c in given:
            hands[seat].remove(c)
        pool += given
    pool.sort(key=ordered_value, reverse=True)
    order = sorted(takes, key=lambda s: final["places"][s])
    received = {s: [] for s in takes}
    roles = final["roles"]
    guard = next((s for s in range(5) if roles[s] == "guard"), None)
    if name == "wuren" and len(pool) == 3 and guard in takes and len(takes) == 2:
        emperor = next(s for s in takes if s != guard)
        received[emperor] += [pool[0], pool[2]]
        received[guard].append(pool[1])
    else:
        quota = dict(takes)
        i = 0
        while i < len(pool):
            for seat in order:
                if quota[seat] and i < len(pool):
                    received[seat].append(pool[i])
                    quota[seat] -= 1
                    i += 1
    for seat, cards in received.items():
        hands[seat] += cards
    return [_rank_bag(h) for h in hands]


@pytest.mark.parametrize("name", ["wuren", "laowang", "pagat"])
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck),
          phases=(Phase.explicit, Phase.reuse, Phase.generate))
@given(seed=st.integers(0, 10**9), seed2=st.integers(0, 10**9), rnd=st.randoms(use_true_random=False))
def test_s22_tribute_of_a_random_deal_is_applied_to_the_next_deal(name, seed, seed2, rnd):
    first, _ = random_deal(name, seed, rnd)
    final = engine.final_view(first)
    rules = engine.preset(name)
    start = final["next_start_seat"] if final["next_start_seat"] is not None else 0
    base = engine.new_deal(rules, seed=seed2, start_seat=start)
    after = engine.new_deal(rules, seed=seed2, start_seat=start, context=final)
    assume(base.phase == "emperor_selection" and after.phase == "emperor_selection")
    # An automatic decline may have moved cards into the travelling pile.
    assume((pview(base)["pile"] or 0) <= 1 and (pview(after)["pile"] or 0) <= 1)
    before = [engine.seat_view(base, s)["hand"] for s in range(5)]
    got = [_rank_bag(engine.seat_view(after, s)["hand"]) for s in range(5)]
    expected = _expected_after_tribute(name, before, final)
    if name == "pagat":
        # pagat says who gives what, not how the takers share: check givers and counts
        for seat in range(5):
            assert sum(got[seat].values()) == sum(expected[seat].values())
        gives = {int(s) for s, n in final["tribute"]["gives"] if n}
        for seat in gives:
            assert got[seat] == expected[seat]
    else:
        assert got == expected, (final["tribute"], final["places"], final["roles"])
