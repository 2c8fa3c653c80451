"""docs/rules.md §3 scoring tables with worked numbers, §2 multipliers, §1 "End of a deal".

Each deal is scripted with short hands (tests/engine/scripts.py): seats go out in a chosen order,
and the deal must stop as soon as every score is fixed.
"""

from __future__ import annotations

import pytest

from games import engine

from .helpers import ACCEPT, KICK, REBEL, REVEAL, SOLO, act, answer_window, deal, pview
from .scripts import (
    auto_play,
    called_guard_hands,
    finish,
    fixed_guard_hands,
    solo_hands,
    start_called,
    start_fixed,
)


def _final(state):
    assert state.phase == "over", state.phase
    return engine.final_view(state)


def _places_out(state):
    return pview(state)["places"]


# ---------------------------------------------------------------- §3.1 weihai

WEIHAI_2V3 = [
    # emperor, guard, order out, expected scores (S = emperor's + guard's place points 4/2/0/-2/-4)
    (0, 1, [0, 1, 2, 3, 4], [12, 6, -6, -6, -6], "e1_g2_S6"),
    (2, 4, [3, 2, 4, 0, 1], [-2, -2, 4, -2, 2], "e2_g3_S2"),
    (0, 3, [1, 2, 4, 0, 3], [-12, 6, 6, -6, 6], "e4_g5_S-6"),
    (1, 0, [1, 2, 3, 4, 0], [0, 0, 0, 0, 0], "e1_g5_S0"),
    (3, 2, [2, 0, 3, 1, 4], [-4, -4, 4, 8, -4], "e3_g1_S4"),
]


@pytest.mark.parametrize("emperor,guard,order,scores", [c[:4] for c in WEIHAI_2V3],
                         ids=[c[4] for c in WEIHAI_2V3])
def test_s31_weihai_emperor_and_guard_scores(emperor, guard, order, scores):
    hands, prelude, chain = fixed_guard_hands(emperor, guard, order)
    state = start_fixed("weihai", hands, emperor)
    state = finish(auto_play(state, prelude), order, chain)
    final = _final(state)
    assert final["scores"] == scores
    assert final["multiplier"] == 1
    assert sum(final["scores"]) == 0


def test_s1_weihai_deal_ends_once_emperor_and_guard_are_out_first_and_second():
    hands, prelude, chain = fixed_guard_hands(0, 1, [0, 1, 2, 3, 4])
    state = auto_play(start_fixed("weihai", hands, 0), prelude)
    state = auto_play(state, [(0, chain[0])])
    assert state.phase == "play"
    state = auto_play(state, [(1, chain[1])])
    assert state.phase == "over"
    # the others keep their cards and take places 3..5 in seat order after the last out (seat 1)
    assert _places_out(state) == [1, 2, 3, 4, 5]
    assert engine.final_view(state)["counts"][2:] == [1, 1, 1]


def test_s1_remaining_players_take_places_in_seat_order_after_the_last_out():
    # emperor 3, guard 2 out 4th and 5th whatever happens once commoners 4, 0, 1 are out
    hands, prelude, chain = fixed_guard_hands(3, 2, [4, 0, 1, 2, 3])
    state = finish(auto_play(start_fixed("weihai", hands, 3), prelude), [4, 0, 1, 2, 3], chain)
    final = _final(state)
    # last out: seat 1; the seats still holding cards in seat order after it: 2 then 3
    assert final["places"] == [2, 3, 4, 5, 1]
    # S = -2 + -4 either way: emperor -12, guard -6, commoners +6
    assert final["scores"] == [6, 6, -6, -12, 6]


@pytest.mark.parametrize("answers,multiplier", [
    ([{}, {1: REVEAL}, {}], 2),
    ([{}, {1: REVEAL}, {2: KICK}], 2),
    ([{}, {1: REVEAL}, {2: KICK, 4: KICK}], 4),
    ([{}, {1: REVEAL}, {2: KICK, 3: KICK, 4: KICK}], 4),
    ([{}, {2: REBEL, 3: REBEL}, {}], 2),
    ([{}, {2: REBEL, 3: REBEL}, {0: KICK}], 4),
    ([{}, {2: REBEL, 3: REBEL}, {1: KICK}], 4),
    ([{}, {2: REBEL, 3: REBEL}, {0: KICK, 1: KICK}], 4),
    ([{}, {2: REBEL}], 1),
    ([{}, {1: REVEAL, 2: REBEL, 3: REBEL}, {}], 2),
    ([{}, {1: REVEAL, 2: REBEL, 3: REBEL}, {0: KICK, 2: KICK, 3: KICK}], 8),
    ([{}, {1: REVEAL, 2: REBEL, 3: REBEL}, {0: KICK}], 4),
    ([{}, {1: REVEAL, 2: REBEL, 4: REBEL}, {2: KICK, 3: KICK}], 4),
], ids=["mingbao", "mingbao_one_kick_fails", "mingbao_two_kicks", "mingbao_three_kicks",
        "rebellion", "rebellion_emperor_kicks", "rebellion_revealed_guard_kicks", "rebellion_both_kick",
        "one_rebel_no_double", "mingbao_and_rebellion_double_once", "both_sides_kick_x8",
        "both_emperor_side_kicks_only", "both_commoners_kick_only"])
def test_s31_weihai_multiplier(answers, multiplier):
    hands, prelude, chain = fixed_guard_hands(0, 1, [0, 1, 2, 3, 4])
    state = start_fixed("weihai", hands, 0, answers=answers)
    assert pview(state)["multiplier"] == multiplier
    state = finish(auto_play(state, prelude), [0, 1, 2, 3, 4], chain)
    final = _final(state)
    assert final["multiplier"] == multiplier
    assert final["scores"] == [12 * multiplier, 6 * multiplier] + [-6 * multiplier] * 3


WEIHAI_HIDDEN = [
    ([0, 1, 2, 3, 4], [16, -4, -4, -4, -4], "1st_+16"),
    ([1, 0, 2, 3, 4], [8, -2, -2, -2, -2], "2nd_+8"),
    ([1, 2, 0, 3, 4], [0, 0, 0, 0, 0], "3rd_0"),
    ([1, 2, 3, 0, 4], [-8, 2, 2, 2, 2], "4th_-8"),
    ([1, 2, 3, 4, 0], [-16, 4, 4, 4, 4], "5th_-16"),
]


@pytest.mark.parametrize("order,scores", [c[:2] for c in WEIHAI_HIDDEN], ids=[c[2] for c in WEIHAI_HIDDEN])
def test_s31_weihai_hidden_solo_scores(order, scores):
    hands, prelude, chain = solo_hands(0, order)
    state = start_fixed("weihai", hands, 0)
    state = finish(auto_play(state, prelude), order, chain)
    assert _final(state)["scores"] == scores


def test_s1_weihai_hidden_solo_ends_when_the_soloist_is_out():
    hands, prelude, chain = solo_hands(0, [1, 0, 2, 3, 4])
    state = auto_play(start_fixed("weihai", hands, 0), prelude)
    state = auto_play(state, [(1, chain[1]), (0, chain[0])])
    assert state.phase == "over"


def test_s31_weihai_hidden_solo_rebellion_and_kick():
    order = [0, 1, 2, 3, 4]
    hands, prelude, chain = solo_hands(0, order)
    state = start_fixed("weihai", hands, 0, answers=[{}, {1: REBEL, 4: REBEL}, {0: KICK}])
    assert pview(state)["multiplier"] == 4
    assert pview(state)["roles"][0] == "soloist", "two rebels reveal the hidden soloist (§3.1 D)"
    state = finish(auto_play(state, prelude), order, chain)
    assert _final(state)["scores"] == [64, -16, -16, -16, -16]


@pytest.mark.parametrize("order,scores", [
    ([0, 1, 2, 3, 4], [32, -8, -8, -8, -8]),
    ([3, 0, 1, 2, 4], [-32, 8, 8, 8, 8]),
], ids=["soloist_first", "opponent_first"])
def test_s31_weihai_open_solo_scores_and_ends_at_first_out(order, scores):
    hands, prelude, chain = solo_hands(0, order)
    state = start_fixed("weihai", hands, 0, how=SOLO)
    state = auto_play(state, prelude)
    state = auto_play(state, [(order[0], chain[order[0]])])
    final = _final(state)
    assert final["scores"] == scores
    assert sum(1 for p in final["places"] if p == 1) == 1


@pytest.mark.parametrize("kicks,multiplier", [({}, 1), ({1: KICK}, 1), ({1: KICK, 2: KICK}, 2),
                                               ({1: KICK, 2: KICK, 3: KICK, 4: KICK}, 2)])
def test_s31_weihai_open_solo_kicks(kicks, multiplier):
    order = [0, 1, 2, 3, 4]
    hands, prelude, chain = solo_hands(0, order)
    state = deal("weihai", hands)
    state = act(state, 0, SOLO)
    assert state.phase == "kick_window"
    assert sorted(pview(state)["window"]["asked"]) == [1, 2, 3, 4]
    state = answer_window(state, kicks)
    assert state.phase == "play"
    state = finish(auto_play(state, prelude), order, chain)
    assert _final(state)["scores"] == [32 * multiplier] + [-8 * multiplier] * 4


# ---------------------------------------------------------------- §3.2 lianzhong_simple

LIANZHONG_2V3 = [
    (0, 1, [0, 1, 2, 3, 4], [6, 3, -3, -3, -3], "e1_g2_g3"),
    (3, 0, [1, 3, 2, 0, 4], [0, 0, 0, 0, 0], "e2_g4_g0"),
    (0, 2, [1, 3, 4, 0, 2], [-6, 3, -3, 3, 3], "e4_g5_g-3"),
    (2, 1, [2, 3, 1, 0, 4], [-2, 2, 4, -2, -2], "e1_g3_g2"),
    (4, 3, [3, 4, 0, 1, 2], [-3, -3, -3, 3, 6], "e2_g1_g3"),
]


@pytest.mark.parametrize("emperor,guard,order,scores", [c[:4] for c in LIANZHONG_2V3],
                         ids=[c[4] for c in LIANZHONG_2V3])
def test_s32_lianzhong_emperor_and_guard_scores(emperor, guard, order, scores):
    hands, prelude, chain = fixed_guard_hands(emperor, guard, order)
    state = start_fixed("lianzhong_simple", hands, emperor)
    state = finish(auto_play(state, prelude), order, chain)
    assert _final(state)["scores"] == scores


def test_s32_lianzhong_mingbao_doubles():
    hands, prelude, chain = fixed_guard_hands(0, 1, [0, 1, 2, 3, 4])
    state = start_fixed("lianzhong_simple", hands, 0, answers=[{}, {1: REVEAL}])
    state = finish(auto_play(state, prelude), [0, 1, 2, 3, 4], chain)
    final = _final(state)
    assert final["multiplier"] == 2
    assert final["scores"] == [12, 6, -6, -6, -6]


def test_s32_lianzhong_mingbao_and_rebellion_double_once():
    hands, prelude, chain = fixed_guard_hands(0, 1, [0, 1, 2, 3, 4])
    state = start_fixed("lianzhong_simple", hands, 0, answers=[{}, {1: REVEAL, 2: REBEL, 3: REBEL}])
    state = finish(auto_play(state, prelude), [0, 1, 2, 3, 4], chain)
    assert _final(state)["scores"] == [12, 6, -6, -6, -6]


LIANZHONG_HIDDEN = [
    ([0, 1, 2, 3, 4], [12, -3, -3, -3, -3], "1st_+12"),
    ([1, 0, 2, 3, 4], [0, 0, 0, 0, 0], "2nd_0"),
    ([1, 2, 0, 3, 4], [-12, 3, 3, 3, 3], "3rd_-12"),
]


@pytest.mark.parametrize("order,scores", [c[:2] for c in LIANZHONG_HIDDEN],
                         ids=[c[2] for c in LIANZHONG_HIDDEN])
def test_s32_lianzhong_hidden_solo_scores(order, scores):
    hands, prelude, chain = solo_hands(0, order)
    state = start_fixed("lianzhong_simple", hands, 0)
    state = finish(auto_play(state, prelude), order, chain)
    assert _final(state)["scores"] == scores


def test_s1_lianzhong_hidden_solo_ends_when_two_opponents_are_out():
    hands, prelude, chain = solo_hands(0, [1, 2, 0, 3, 4])
    state = auto_play(start_fixed("lianzhong_simple", hands, 0), prelude)
    state = auto_play(state, [(1, chain[1])])
    assert state.phase == "play"
    state = auto_play(state, [(2, chain[2])])
    assert state.phase == "over", "two opponents out: the soloist is 3rd at best (§1 End of a deal)"
    assert engine.final_view(state)["scores"] == [-12, 3, 3, 3, 3]


def test_s32_lianzhong_hidden_solo_rebellion_doubles():
    hands, prelude, chain = solo_hands(0, [0, 1, 2, 3, 4])
    state = start_fixed("lianzhong_simple", hands, 0, answers=[{}, {2: REBEL, 3: REBEL}])
    assert pview(state)["multiplier"] == 2
    state = finish(auto_play(state, prelude), [0, 1, 2, 3, 4], chain)
    assert _final(state)["scores"] == [24, -6, -6, -6, -6]


@pytest.mark.parametrize("order,scores", [
    ([0, 1, 2, 3, 4], [24, -6, -6, -6, -6]),
    ([2, 0, 1, 3, 4], [-24, 6, 6, 6, 6]),
], ids=["soloist_first", "opponent_first_ends_at_once"])
def test_s32_lianzhong_open_solo(order, scores):
    hands, prelude, chain = solo_hands(0, order)
    state = start_fixed("lianzhong_simple", hands, 0, how=SOLO)
    state = auto_play(state, prelude)
    state = auto_play(state, [(order[0], chain[order[0]])])
    assert _final(state)["scores"] == scores


# ---------------------------------------------------------------- §3.3 lianzhong_classic

def test_s33_classic_called_guard_scores_like_lianzhong():
    order = [0, 1, 2, 3, 4]
    hands, prelude, chain = called_guard_hands(0, 1, order)
    state = start_called("lianzhong_classic", hands, 0, "8H")
    state = finish(auto_play(state, prelude), order, chain)
    assert _final(state)["scores"] == [6, 3, -3, -3, -3]


def test_s33_classic_guard_reveal_doubles():
    order = [2, 0, 1, 3, 4]
    hands, prelude, chain = called_guard_hands(0, 1, order)
    state = start_called("lianzhong_classic", hands, 0, "8H", answers=[{}, {1: REVEAL}])
    state = finish(auto_play(state, prelude), order, chain)
    final = _final(state)
    assert final["multiplier"] == 2
    # emperor 2nd, guard 3rd: g = 6 - 5 = 1
    assert final["scores"] == [4, 2, -2, -2, -2]


def test_s33_classic_calling_a_card_held_four_times_is_a_hidden_solo():
    order = [0, 1, 2, 3, 4]
    hands, prelude, chain = called_guard_hands(0, None, order, solo=True)
    state = start_called("lianzhong_classic", hands, 0, "8H")
    assert engine.seat_view(state, 0)["roles"][0] == "soloist"
    assert pview(state)["roles"][0] == "emperor"
    state = finish(auto_play(state, prelude), order, chain)
    assert _final(state)["scores"] == [12, -3, -3, -3, -3]


# ---------------------------------------------------------------- §3.7 pagat

PAGAT_2V3 = [
    (0, 1, [0, 1, 2, 3, 4], [6, 3, -3, -3, -3], "e1_g2_T3"),
    (0, 1, [2, 3, 4, 0, 1], [-6, -3, 3, 3, 3], "e4_g5_T-3"),
    (1, 3, [1, 0, 2, 4, 3], [0, 0, 0, 0, 0], "e1_g5_T0"),
    (4, 2, [3, 4, 2, 0, 1], [-1, -1, 1, -1, 2], "e2_g3_T1"),
]


@pytest.mark.parametrize("emperor,guard,order,scores", [c[:4] for c in PAGAT_2V3],
                         ids=[c[4] for c in PAGAT_2V3])
def test_s37_pagat_emperor_and_guard_scores(emperor, guard, order, scores):
    hands, prelude, chain = fixed_guard_hands(emperor, guard, order)
    state = start_fixed("pagat", hands, emperor)
    state = finish(auto_play(state, prelude), order, chain)
    assert _final(state)["scores"] == scores


@pytest.mark.parametrize("answers", [{2: REBEL}, {1: REVEAL}, {1: REVEAL, 2: REBEL, 3: REBEL, 4: REBEL}],
                         ids=["one_rebel", "reveal", "all_declare"])
def test_s37_pagat_any_declaration_doubles_once(answers):
    hands, prelude, chain = fixed_guard_hands(0, 1, [0, 1, 2, 3, 4])
    state = start_fixed("pagat", hands, 0, answers=[answers])
    assert pview(state)["multiplier"] == 2
    state = finish(auto_play(state, prelude), [0, 1, 2, 3, 4], chain)
    assert _final(state)["scores"] == [12, 6, -6, -6, -6]


PAGAT_HIDDEN = [
    ([0, 1, 2, 3, 4], [12, -3, -3, -3, -3], "1st_+12"),
    ([1, 0, 2, 3, 4], [0, 0, 0, 0, 0], "2nd_0"),
    ([1, 2, 3, 0, 4], [-12, 3, 3, 3, 3], "4th_-12"),
]


@pytest.mark.parametrize("order,scores", [c[:2] for c in PAGAT_HIDDEN], ids=[c[2] for c in PAGAT_HIDDEN])
def test_s37_pagat_hidden_solo(order, scores):
    hands, prelude, chain = solo_hands(0, order)
    state = start_fixed("pagat", hands, 0)
    state = finish(auto_play(state, prelude), order, chain)
    assert _final(state)["scores"] == scores


def test_s37_pagat_declaration_doubles_against_a_hidden_solo():
    hands, prelude, chain = solo_hands(0, [0, 1, 2, 3, 4])
    state = start_fixed("pagat", hands, 0, answers=[{3: REBEL}])
    state = finish(auto_play(state, prelude), [0, 1, 2, 3, 4], chain)
    assert _final(state)["scores"] == [24, -6, -6, -6, -6]


@pytest.mark.parametrize("order,scores", [
    ([0, 1, 2, 3, 4], [24, -6, -6, -6, -6]),
    ([4, 0, 1, 2, 3], [-24, 6, 6, 6, 6]),
], ids=["soloist_first", "opponent_first_ends_the_deal"])
def test_s37_pagat_declared_solo(order, scores):
    hands, prelude, chain = solo_hands(0, order)
    state = start_fixed("pagat", hands, 0, how=SOLO)
    state = auto_play(state, prelude)
    state = auto_play(state, [(order[0], chain[order[0]])])
    assert _final(state)["scores"] == scores


# ---------------------------------------------------------------- §3.4 wuren

WUREN = [
    (0, 1, [0, 2, 3, 1, 4], [2, 2, -2, -2, -2], "seed_example_e1_g4"),
    (0, 1, [0, 1, 2, 3, 4], [6, 6, -6, -6, -6], "e1_g2"),
    (2, 4, [0, 1, 3, 2, 4], [6, 6, -6, 6, -6], "e4_g5"),
    (3, 0, [3, 1, 2, 4, 0], [0, 0, 0, 0, 0], "e1_g5_draw"),
]


@pytest.mark.parametrize("emperor,guard,order,scores", [c[:4] for c in WUREN], ids=[c[4] for c in WUREN])
def test_s34_wuren_team_scores(emperor, guard, order, scores):
    hands, prelude, chain = called_guard_hands(emperor, guard, order, bj=False)
    state = start_called("wuren", hands, emperor, "8H", candidate=emperor)
    state = finish(auto_play(state, prelude), order, chain)
    assert _final(state)["scores"] == scores


@pytest.mark.parametrize("order,scores", [
    ([0, 1, 2, 3, 4], [4, -4, -4, -4, -4]),
    ([1, 0, 2, 3, 4], [2, -2, -2, -2, -2]),
    ([1, 2, 3, 4, 0], [-4, 4, 4, 4, 4]),
], ids=["1st", "2nd", "5th"])
def test_s34_wuren_hidden_solo_scores(order, scores):
    hands, prelude, chain = called_guard_hands(0, None, order, solo=True, bj=False)
    state = start_called("wuren", hands, 0, "8H", candidate=0)
    state = finish(auto_play(state, prelude), order, chain)
    assert _final(state)["scores"] == scores


def test_s34_wuren_open_solo_doubles():
    order = [0, 1, 2, 3, 4]
    hands, prelude, chain = called_guard_hands(0, None, order, solo=True, bj=False)
    state = start_called("wuren", hands, 0, "8H", solo=True, candidate=0)
    assert pview(state)["multiplier"] == 2
    state = finish(auto_play(state, prelude), order, chain)
    assert _final(state)["scores"] == [8, -8, -8, -8, -8]


# ---------------------------------------------------------------- §3.6 laowang

def laowang_hands(emperor, guard, order):
    """Emperor takes the bottom BJ; the guard holds 老王 SJ*. Prelude: the emperor leads BJ, the
    guard kills it with SJ* and leads 7C (or his last card)."""
    chain = {s: "9TJQK"[i] + "S" for i, s in enumerate(order)}
    hands = [[chain[s]] for s in range(5)]
    if guard == emperor:
        hands[emperor] += ["SJ*"] + ([] if order[0] == emperor else ["7H"])
        prelude = [(emperor, "BJ SJ*")] + ([] if order[0] == emperor else [(emperor, "7H")])
        return hands, prelude, chain
    hands[guard] += ["SJ*"] + ([] if order[0] == guard else ["7C"])
    prelude = [(emperor, "BJ"), (guard, "SJ*")] + ([] if order[0] == guard else [(guard, "7C")])
    return hands, prelude, chain


LAOWANG = [
    (0, 1, [0, 1, 2, 3, 4], [4, 2, -2, -2, -2], "1+2"),
    (0, 1, [0, 2, 1, 3, 4], [2, 1, -1, -1, -1], "1+3"),
    (0, 1, [0, 2, 3, 1, 4], [2, 1, -1, -1, -1], "1+4"),
    (2, 0, [3, 2, 0, 4, 1], [1, -1, 2, -1, -1], "2+3"),
    (0, 1, [0, 2, 3, 4, 1], [0, 0, 0, 0, 0], "1+5"),
    (0, 1, [2, 0, 3, 1, 4], [0, 0, 0, 0, 0], "2+4"),
    (0, 1, [2, 0, 3, 4, 1], [-2, -1, 1, 1, 1], "2+5"),
    (0, 1, [2, 3, 0, 1, 4], [-2, -1, 1, 1, 1], "3+4_D"),
    (0, 1, [2, 3, 0, 4, 1], [-2, -1, 1, 1, 1], "3+5"),
    (4, 3, [0, 1, 2, 4, 3], [2, 2, 2, -2, -4], "4+5"),
]


@pytest.mark.parametrize("emperor,guard,order,scores", [c[:4] for c in LAOWANG], ids=[c[4] for c in LAOWANG])
def test_s36_laowang_scores_are_net_tribute_cards(emperor, guard, order, scores):
    hands, prelude, chain = laowang_hands(emperor, guard, order)
    state = deal("laowang", hands, candidate=emperor)
    state = act(state, emperor, ACCEPT)
    assert state.phase == "play"
    state = finish(auto_play(state, prelude), order, chain)
    final = _final(state)
    assert final["scores"] == scores
    gives, takes = dict(final["tribute"]["gives"]), dict(final["tribute"]["takes"])
    for seat in range(5):
        assert takes.get(seat, 0) - gives.get(seat, 0) == scores[seat]


LAOWANG_SOLO = [
    ([0, 1, 2, 3, 4], [8, -2, -2, -2, -2], "1st_takes_8"),
    ([1, 0, 2, 3, 4], [4, -1, -1, -1, -1], "2nd_takes_4"),
    ([1, 2, 0, 3, 4], [0, 0, 0, 0, 0], "3rd_0"),
    ([1, 2, 3, 0, 4], [-4, 1, 1, 1, 1], "4th_gives_4"),
    ([1, 2, 3, 4, 0], [-8, 2, 2, 2, 2], "5th_gives_8"),
]


@pytest.mark.parametrize("order,scores", [c[:2] for c in LAOWANG_SOLO], ids=[c[2] for c in LAOWANG_SOLO])
def test_s36_laowang_self_guard_solo(order, scores):
    hands, prelude, chain = laowang_hands(0, 0, order)
    state = deal("laowang", hands, candidate=0)
    state = act(state, 0, ACCEPT)
    assert engine.seat_view(state, 0)["roles"][0] == "soloist"
    state = finish(auto_play(state, prelude), order, chain)
    assert _final(state)["scores"] == scores


# ---------------------------------------------------------------- §3.5 campus

CAMPUS_CHAIN = "TJQKA"


def campus_2v3(order):
    """Emperor 0 calls 9H (three copies); guard 1 holds the fourth (特王); commoners 2, 3, 4 each
    hold a 9, so the call is allowed (§3.5); no 3s anywhere, so 憋三 never applies.

    Prelude: the emperor leads 9H 9H 9H; three times he leads a 7, a commoner dumps his 9 on it and
    the emperor retakes the trick with a big joker; then he leads 7H, the guard kills it with 特王
    and leads 8S (unless he is to go out first). Then the chain."""
    chain = {s: CAMPUS_CHAIN[i] + "S" for i, s in enumerate(order)}
    hands = [[chain[s]] for s in range(5)]
    hands[0] += "9H 9H 9H BJ* BJ BJ 7S 7C 7D 7H".split()
    hands[1] += ["9H"] + ([] if order[0] == 1 else ["8S"])
    hands[2] += ["9S"]
    hands[3] += ["9C"]
    hands[4] += ["9D"]
    prelude = [(0, "9H 9H 9H"), (0, "7S"), (2, "9S"), (0, "BJ*"), (0, "7C"), (3, "9C"), (0, "BJ"),
               (0, "7D"), (4, "9D"), (0, "BJ"), (0, "7H"), (1, "9H")]
    if order[0] != 1:
        prelude.append((1, "8S"))
    return hands, prelude, chain


CAMPUS = [
    ([0, 1, 2, 3, 4], None, [2, 1, -1, -1, -1], "e1_g2_chips5_win"),
    ([0, 2, 3, 4, 1], None, [-2, -1, 1, 1, 1], "e1_g5_chips2_lose"),
    ([2, 0, 1, 3, 4], None, [2, 1, -1, -1, -1], "e2_g3_chips3_win"),
    ([2, 3, 0, 4, 1], None, [-2, -1, 1, 1, 1], "e3_g5_chips0_lose"),
    ([0, 1, 2, 3, 4], {1: REVEAL}, [4, 2, -2, -2, -2], "mingbao_doubles"),
]


@pytest.mark.parametrize("order,declaration,scores", [c[:3] for c in CAMPUS], ids=[c[3] for c in CAMPUS])
def test_s35_campus_chip_scores(order, declaration, scores):
    hands, prelude, chain = campus_2v3(order)
    state = start_called("campus", hands, 0, "9H", answers=[declaration or {}])
    state = finish(auto_play(state, prelude), order, chain)
    final = _final(state)
    assert final["scores"] == scores
    assert final["tribute"]["gives"] == [] and final["tribute"]["takes"] == [] or \
        not any(n for _, n in final["tribute"]["gives"]), "campus has no tribute"


def campus_hidden_solo(order):
    chain = {s: CAMPUS_CHAIN[i] + "S" for i, s in enumerate(order)}
    hands = [[chain[s]] for s in range(5)]
    hands[0] += "9H 9H 9H 9H BJ* BJ BJ BJ 7S 7C 7D 7H".split() + ([] if order[0] == 0 else ["8C"])
    for seat, nine in zip((1, 2, 3, 4), ("9S", "9S", "9C", "9D")):
        hands[seat].append(nine)
    prelude = [(0, "9H 9H 9H 9H"), (0, "7S"), (1, "9S"), (0, "BJ*"), (0, "7C"), (2, "9S"), (0, "BJ"),
               (0, "7D"), (3, "9C"), (0, "BJ"), (0, "7H"), (4, "9D"), (0, "BJ")]
    if order[0] != 0:
        prelude.append((0, "8C"))
    return hands, prelude, chain


@pytest.mark.parametrize("order,scores", [
    ([0, 1, 2, 3, 4], [4, -1, -1, -1, -1]),
    ([1, 0, 2, 3, 4], [-4, 1, 1, 1, 1]),
], ids=["soloist_1st_wins", "soloist_2nd_loses"])
def test_s35_campus_hidden_solo(order, scores):
    hands, prelude, chain = campus_hidden_solo(order)
    state = start_called("campus", hands, 0, "9H")
    assert engine.seat_view(state, 0)["roles"][0] == "soloist"
    assert pview(state)["roles"][0] == "emperor"
    state = finish(auto_play(state, prelude), order, chain)
    assert _final(state)["scores"] == scores


def test_s31_weihai_after_a_transfer_emperor_and_transferring_guard_score_as_2v3():
    order = [2, 0, 1, 3, 4]
    hands, prelude, chain = fixed_guard_hands(2, 0, order)
    hands[2].remove("BJ*")
    hands[0].append("BJ*")  # seat 0 holds both marked cards and transfers to seat 2
    state = deal("weihai", hands)
    state = act(state, 0, engine.Action("transfer"))
    state = act(state, 2, ACCEPT)
    while state.phase != "play":
        state = answer_window(state)
    state = finish(auto_play(state, prelude), order, chain)
    final = _final(state)
    # emperor 1st (4) + guard 2nd (2): S = 6
    assert final["scores"] == [6, -6, 12, -6, -6]
    assert final["multiplier"] == 1
