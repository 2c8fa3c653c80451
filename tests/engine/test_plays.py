"""docs/rules.md §1 "A play", "Beating" and §4 special comparisons, through the stateless API
(`engine.is_play`, `engine.beats`). Table-driven from the spec's own examples, plus an exhaustive
check of small plays against reference oracles written from the rule text (§1 pairwise rule,
§4 closed form of 烤牌)."""

from __future__ import annotations

from itertools import product

import pytest

from games import engine

from .helpers import ordered_value


def _c(text):
    return text.split()


# ---------------------------------------------------------------- §1 A play (一套牌)

IS_PLAY = [
    # (preset, cards, expected, id)
    ("lianzhong_simple", "6S", True, "s1_single"),
    ("lianzhong_simple", "7S 7H", True, "s1_pair"),
    ("lianzhong_simple", "9S 9H 9C 9D", True, "s1_four_of_a_rank"),
    ("lianzhong_simple", "SJ 8H 8S 8C", True, "s1_small_joker_attached_to_set"),
    ("lianzhong_simple", "BJ SJ 9S 9H 9C 9D", True, "s1_both_jokers_attached"),
    ("lianzhong_simple", "BJ BJ", True, "s1_joker_pair"),
    ("lianzhong_simple", "BJ SJ SJ", True, "s1_all_jokers_mixed"),
    ("lianzhong_simple", "BJ* SJ* 8H", True, "s1_marked_cards_attach_like_jokers"),
    ("lianzhong_simple", "8H 9H", False, "s1_mixed_ranks_are_no_play"),
    ("lianzhong_simple", "8H 9H TH JH QH", False, "s1_no_straights"),
    ("lianzhong_simple", "SJ 8H 9H", False, "s1_jokers_do_not_join_two_ranks"),
    ("lianzhong_simple", "", False, "s1_empty_is_no_play"),
    ("weihai", "SJ 2H", True, "s31_weihai_jokers_attach_to_2s"),
    ("weihai", "3S", False, "s31_weihai_has_no_3s"),
    ("weihai", "5S 5H", False, "s31_weihai_has_no_5s"),
    ("lianzhong_simple", "2H 8H", False, "s32_2s_are_never_wild_in_lianzhong"),
    ("lianzhong_simple", "2H QH QS", False, "s32_2_cannot_attach_to_queens"),
    ("lianzhong_classic", "SJ* 8H", False, "s33_classic_has_no_SJ_star"),
    ("wuren", "BJ 5S 5H", True, "s34_wuren_has_5s"),
    ("wuren", "3S 3H 3C", True, "s34_wuren_has_3s"),
    ("campus", "SJ 2H", False, "s35_campus_2_carries_no_joker"),
    ("campus", "BJ 2H 2S", False, "s35_campus_2s_carry_no_big_joker"),
    ("campus", "2H 2S", True, "s35_campus_2s_alone_are_a_play"),
    ("campus", "SJ AH", True, "s35_campus_other_ranks_carry_jokers"),
    ("laowang", "2H QH QS QD", True, "s36_laowang_2_attaches_to_queens"),
    ("laowang", "SJ* KH", True, "s36_laowang_SJ_star_attaches_like_a_joker"),
    ("laowang", "2H 2S", True, "s36_laowang_2s_alone"),
    ("pagat", "2H 8H", False, "s37_pagat_2s_not_wild"),
]


@pytest.mark.parametrize("preset,text,expected", [c[:3] for c in IS_PLAY], ids=[c[3] for c in IS_PLAY])
def test_s1_is_play(preset, text, expected):
    rules = engine.preset(preset)
    if expected:
        assert engine.is_play(rules, _c(text)) is True
    else:
        # a code outside the preset's deck may be refused with ValueError instead of False
        try:
            result = engine.is_play(rules, _c(text))
        except ValueError:
            return
        assert result is False


# ---------------------------------------------------------------- §1 Beating (管)

# The consequences every suite must show (§1), each in every preset whose deck has the cards and
# whose special rules do not apply to it.
STANDARD_PRESETS = ("weihai", "lianzhong_simple", "lianzhong_classic", "wuren", "campus", "laowang", "pagat")

BEATS_EVERYWHERE = [
    ("9S 9H 9C 9D", "SJ 8S 8H 8C", False, "s1_9999_cannot_beat_SJ_888"),
    ("SJ 7S 7H 7C", "6S 6H 6C 6D", True, "s1_SJ_777_beats_6666"),
    ("BJ SJ SJ SJ", "AS AH AC AD", True, "s1_BJ_SJSJSJ_beats_AAAA"),
    ("BJ BJ JS JH JC", "SJ SJ 9S 9H 9C", True, "s1_BJBJ_JJJ_beats_SJSJ_999"),
    ("BJ BJ BJ JS JH", "SJ SJ 9S 9H 9C", True, "s1_BJBJBJ_JJ_beats_SJSJ_999"),
    ("9S 9H 9C 9D", "9S 9H 9C 9D", False, "s1_equal_plays_never_beat"),
    ("SJ 8H 8S", "SJ 8C 8D", False, "s1_equal_plays_with_joker_never_beat"),
    ("BJ", "BJ", False, "s1_BJ_does_not_beat_BJ"),
    ("SJ", "SJ", False, "s1_SJ_does_not_beat_SJ"),
    ("BJ 9S 9H", "BJ 8S 8H", False, "s1_play_with_BJ_needs_a_special_rule"),
    ("9S 9H", "8S", False, "s1_sizes_must_match"),
    ("9S", "8S 8H", False, "s1_fewer_cards_never_beat"),
    ("9S", "9H", False, "s1_suits_never_matter"),
    ("TS", "9H", True, "s1_higher_single"),
    ("2S", "AH", True, "s1_2_above_A"),
    ("SJ", "2S", True, "s1_SJ_above_2"),
    ("BJ", "SJ", True, "s1_BJ_above_SJ"),
    ("AS AH", "SJ KS", False, "s1_attached_card_keeps_its_rank"),
    ("BJ KS", "SJ QS", True, "s1_every_position_higher"),
    ("BJ JS", "SJ QS", False, "s1_one_lower_position_fails"),
    ("SJ SJ QS", "BJ JS JH", False, "s1_sorted_high_to_low_first_card_lower"),
]

BEATS_CASES = []
for _a, _t, _e, _id in BEATS_EVERYWHERE:
    for _p in STANDARD_PRESETS:
        if _p == "weihai" and ("6S" in _t):
            continue  # weihai has no 6S (three 6s removed); covered by the 6H/6D variant
        BEATS_CASES.append((_p, _a, _t, _e, f"{_id}[{_p}]"))
BEATS_CASES += [
    ("weihai", "SJ 7S 7H 7C", "6D 6D 6D 6D", True, "s1_SJ_777_beats_6666[weihai_6D]"),
    # BJ 6666 beats SJ 5555: needs 5s (wuren, campus, laowang)
    ("wuren", "BJ 6S 6H 6C 6D", "SJ 5S 5H 5C 5D", True, "s1_BJ_6666_beats_SJ_5555[wuren]"),
    ("campus", "BJ 6S 6H 6C 6D", "SJ 5S 5H 5C 5D", True, "s1_BJ_6666_beats_SJ_5555[campus]"),
    ("laowang", "BJ 6S 6H 6C 6D", "SJ 5S 5H 5C 5D", True, "s1_BJ_6666_beats_SJ_5555[laowang]"),
    ("lianzhong_simple", "BJ 7S 7H 7C 7D", "SJ 6S 6H 6C 6D", True, "s1_BJ_7777_beats_SJ_6666"),
    ("wuren", "4S", "3S", True, "s34_order_4_above_3"),
    ("wuren", "5S", "4S", True, "s34_order_5_above_4"),
    ("wuren", "6S", "5S", True, "s34_order_6_above_5"),
    # marked cards play as plain jokers unless a preset says otherwise (§1 Order)
    ("weihai", "BJ*", "SJ", True, "s1_BJ_star_plays_as_BJ"),
    ("weihai", "BJ", "BJ*", False, "s1_BJ_does_not_beat_BJ_star"),
    ("weihai", "BJ*", "BJ", False, "s1_BJ_star_does_not_beat_BJ"),
    ("weihai", "SJ*", "SJ", False, "s1_SJ_star_plays_as_SJ"),
    ("weihai", "BJ", "SJ*", True, "s1_BJ_beats_SJ_star"),
    ("lianzhong_simple", "SJ* AS", "KS KH", True, "s1_SJ_star_attached_as_SJ"),
    ("lianzhong_simple", "SJ* 9S", "SJ 8S", False, "s1_SJ_star_does_not_beat_SJ_in_a_set"),
    ("pagat", "BJ", "SJ*", True, "s37_pagat_SJ_star_is_a_small_joker"),
    # without a special rule no answer of another size beats a joker play
    ("weihai", "BJ BJ", "BJ", False, "s4_no_two_kill_in_weihai"),
    ("lianzhong_simple", "BJ BJ 8S 8H 8C 8D", "BJ 7S 7H 7C 7D", False, "s4_no_roasting_unless_option"),
    ("lianzhong_simple", "SJ SJ", "SJ", False, "s4_no_roasting_SJSJ_over_SJ_unless_option"),
    ("pagat", "BJ BJ", "BJ", False, "s4_no_two_kill_in_pagat"),
    ("wuren", "BJ BJ", "BJ", False, "s4_no_two_kill_in_wuren"),
]


@pytest.mark.parametrize("preset,answer,table,expected", [c[:4] for c in BEATS_CASES],
                         ids=[c[4] for c in BEATS_CASES])
def test_s1_beats(preset, answer, table, expected):
    assert engine.beats(engine.preset(preset), _c(answer), _c(table)) is expected


# ---------------------------------------------------------------- §4 烤牌 roasting

ROASTING = [
    ("BJ BJ 8S 8H 8C 8D", "BJ 7S 7H 7C 7D", True, "s4_seed_BJBJ_8888_beats_BJ_7777"),
    ("BJ BJ BJ SJ 8S 8H", "BJ SJ 7S 7H 7C", True, "s4_seed_BJBJBJ_SJ_88_beats_BJ_SJ_777"),
    ("BJ BJ SJ SJ", "BJ SJ", True, "s4_derived_2BJ_2SJ_beats_BJ_SJ"),
    ("BJ BJ SJ SJ SJ", "BJ BJ", True, "s4_derived_2BJ_3SJ_beats_2BJ"),
    ("BJ BJ BJ", "BJ SJ", True, "s4_derived_3BJ_beats_BJ_SJ"),
    ("BJ SJ SJ", "SJ SJ", True, "s4_derived_BJ_2SJ_beats_2SJ"),
    ("BJ SJ SJ SJ", "BJ SJ", True, "s4_derived_BJ_3SJ_beats_BJ_SJ"),
    ("BJ BJ BJ SJ SJ", "BJ SJ SJ", True, "s4_derived_3BJ_2SJ_beats_BJ_2SJ"),
    ("BJ BJ", "BJ", True, "s4_BJBJ_over_BJ"),
    ("SJ SJ", "SJ", True, "s4_SJSJ_over_SJ"),
    ("SJ SJ SJ", "BJ", True, "s4_SJSJSJ_over_BJ"),
    ("BJ", "SJ", True, "s4_one_higher_card_over_SJ"),
    ("SJ SJ", "BJ", False, "s4_SJSJ_is_not_enough_for_BJ"),
    ("BJ SJ", "BJ", False, "s4_BJ_SJ_is_no_group_over_BJ"),
    ("BJ BJ BJ", "BJ", False, "s4_D_no_overpayment_BJBJBJ_over_BJ"),
    ("BJ BJ SJ", "BJ", False, "s4_D_no_overpayment_extra_SJ"),
    ("SJ SJ SJ SJ", "SJ", False, "s4_D_no_overpayment_SJ"),
    ("BJ BJ 8S 8H 8C 8D 8S", "BJ 7S 7H 7C 7D", False, "s4_D_only_jokers_are_added_not_naturals"),
    ("SJ SJ SJ 8S 8H 8C 8D", "BJ 7S 7H 7C 7D", True, "s4_D_SJSJSJ_roasts_BJ_inside_a_set"),
    ("BJ BJ 7S 7H 7C 7D", "BJ 6S 6H 6C 6D", True, "s4_BJBJ_7777_over_BJ_6666"),
    ("BJ BJ 7S 7H 7C 7D", "BJ 7S 7H 7C 7D", False, "s4_naturals_must_still_be_higher"),
    ("BJ BJ BJ 8S 8H 8C", "BJ 7S 7H 7C 7D", True, "s4_joker_beats_a_natural_in_its_group"),
    ("BJ BJ 8S 8H 8C", "BJ 7S 7H 7C 7D", False, "s4_every_table_card_needs_a_group"),
    ("SJ SJ SJ SJ", "BJ 7S", True, "s4_SJ_over_natural_plus_SJSJSJ_over_BJ"),
    ("BJ BJ 9S", "BJ", False, "s4_natural_cannot_join_an_all_joker_answer"),
    ("BJ BJ BJ BJ", "BJ BJ", True, "s4_two_BJ_pairs_over_BJBJ"),
    ("BJ 8S 8H 8C 8D", "7S 7H 7C 7D", False, "s4_no_roasting_without_a_joker_on_the_table"),
]


@pytest.mark.parametrize("preset", ["lianzhong_simple", "lianzhong_classic"])
@pytest.mark.parametrize("answer,table,expected", [c[:3] for c in ROASTING], ids=[c[3] for c in ROASTING])
def test_s4_roasting(preset, answer, table, expected):
    rules = engine.preset(preset, roasting=True)
    assert engine.beats(rules, _c(answer), _c(table)) is expected


# ---------------------------------------------------------------- §3.6 laowang, §4 two-kill

LAOWANG = [
    ("BJ BJ", "BJ", True, "s4_two_kill_BJBJ_over_BJ"),
    ("BJ BJ BJ", "BJ", False, "s4_two_kill_no_overpayment"),
    ("BJ BJ 8S 8H 8C 8D", "BJ 7S 7H 7C 7D", True, "s4_two_kill_BJ_inside_a_set"),
    ("BJ BJ 7S 7H 7C 7D", "BJ 7S 7H 7C 7D", False, "s4_two_kill_rest_must_still_beat"),
    ("BJ BJ BJ BJ", "BJ BJ", True, "s4_two_kill_two_BJs"),
    ("BJ BJ BJ", "BJ SJ", True, "s4_two_kill_BJ_and_a_higher_card_over_SJ"),
    ("BJ BJ BJ", "BJ BJ", False, "s4_two_kill_one_BJ_left_unmatched"),
    ("SJ SJ SJ", "BJ", False, "s4_two_kill_only_BJBJ_group_no_SJSJSJ"),
    ("SJ SJ", "SJ", False, "s4_two_kill_only_BJBJ_group_no_SJSJ"),
    ("BJ BJ", "SJ", False, "s4_two_kill_is_only_over_BJ"),
    ("SJ*", "BJ", True, "s36_laowang_SJ_star_beats_BJ"),
    ("BJ", "SJ*", False, "s36_laowang_BJ_does_not_beat_SJ_star"),
    ("BJ BJ", "SJ*", False, "s36_laowang_two_kill_not_over_SJ_star"),
    ("SJ* KS", "BJ QS", True, "s36_laowang_SJ_star_attached_above_BJ"),
    ("SJ* 9S", "SJ 9H", False, "s36_laowang_attached_SJ_star_other_positions_still_compared"),
    ("2S QS QH QC", "JS JH JC JD", True, "s36_laowang_2_QQQ_sorts_2_Q_Q_Q"),
    ("2S QS QH QC", "AS AH AC AD", False, "s36_laowang_2_QQQ_does_not_beat_AAAA"),
    ("2S QS QH QC", "2H JS JH JC", False, "s36_laowang_2_QQQ_vs_2_JJJ_equal_2s"),
    ("SJ 2S QS QH", "2H JS JH JC", True, "s36_laowang_SJ_2_QQ_beats_2_JJJ"),
    ("2S QS QH QC", "KS KH KC KD", False, "s36_laowang_2_QQQ_does_not_beat_KKKK"),
    ("SJ KS KH KC", "2S QS QH QC", True, "s36_laowang_SJ_KKK_beats_2_QQQ"),
    ("2S 2H 2C 2D", "2S QS QH QC", False, "s36_laowang_2222_does_not_beat_2_QQQ"),
    ("AS AH AC AD", "2S QS QH QC", False, "s36_laowang_AAAA_does_not_beat_2_QQQ"),
]


@pytest.mark.parametrize("answer,table,expected", [c[:3] for c in LAOWANG], ids=[c[3] for c in LAOWANG])
def test_s36_laowang_comparisons(answer, table, expected):
    assert engine.beats(engine.preset("laowang"), _c(answer), _c(table)) is expected


# ---------------------------------------------------------------- §3.5 campus bombs (stateless part)

CAMPUS = [
    ("KH KH KH KH", "BJ", True, "s35_bomb_beats_a_big_joker"),
    ("KH KH KH KH", "8S", True, "s35_bomb_beats_a_single"),
    ("KH KH KH KH", "BJ BJ SJ SJ SJ", True, "s35_bomb_beats_a_play_of_any_size"),
    ("4D 4D 4D 4D", "2S 2H", True, "s35_lowest_bomb_beats_2s"),
    ("KH KH KS KS", "8S", False, "s35_mixed_suits_are_no_bomb"),
    ("BJ BJ BJ BJ", "8S", False, "s35_D_jokers_never_form_a_bomb"),
    ("2H 2H 2H 2H", "8S", False, "s35_2s_never_form_a_bomb"),
    ("SJ 9S", "SJ 8S", False, "s35_SJ_9_vs_SJ_8_equal_first_card"),
    ("AS AH", "KS KH", True, "s35_ordinary_pairs"),
]


@pytest.mark.parametrize("answer,table,expected", [c[:3] for c in CAMPUS], ids=[c[3] for c in CAMPUS])
def test_s35_campus_comparisons(answer, table, expected):
    assert engine.beats(engine.preset("campus"), _c(answer), _c(table)) is expected


# ---------------------------------------------------------------- oracles over every small play

def _std_oracle(answer, table):
    """§1: same size, both sorted high to low, every answer card strictly higher."""
    if len(answer) != len(table):
        return False
    a = sorted((ordered_value(c) for c in answer), reverse=True)
    t = sorted((ordered_value(c) for c in table), reverse=True)
    return all(x > y for x, y in zip(a, t))


def _shape(play):
    b = sum(1 for c in play if c.startswith("BJ"))
    s = sum(1 for c in play if c.startswith("SJ"))
    naturals = [ordered_value(c) for c in play if not c.startswith(("BJ", "SJ"))]
    return b, s, len(naturals), (naturals[0] if naturals else None)


def _roasting_oracle(answer, table):
    """§4 closed form, applied when the play to beat contains a joker; §1 otherwise."""
    b, s, n, t = _shape(table)
    if b + s == 0:
        return _std_oracle(answer, table)
    big, small, m, r = _shape(answer)
    if not (m == 0 or (n > 0 and m <= n and r > t)):
        return False
    for x in range(b + 1):
        for y in range(s + 1):
            u_big = big - 2 * x - y
            u_small = small - 3 * (b - x) - 2 * (s - y)
            if u_big >= 0 and u_small >= 0 and u_big + u_small == n - m:
                return True
    return False


def _small_plays(max_size):
    """Every play of at most `max_size` cards over BJ, SJ and naturals 7, 8 and 2 of a 168-card deck."""
    bjs = ["BJ*", "BJ", "BJ", "BJ"]
    sjs = ["SJ*", "SJ", "SJ", "SJ"]
    plays = []
    for nb, ns in product(range(5), range(5)):
        jokers = bjs[:nb] + sjs[:ns]
        for rank, m in [(None, 0)] + [(r, m) for r in "782" for m in range(1, 5)]:
            naturals = [rank + s for s in "SHCD"[:m]] if rank else []
            play = jokers + naturals
            if 0 < len(play) <= max_size:
                plays.append(play)
    return plays


def test_s1_beats_matches_pairwise_rule_on_every_small_play():
    rules = engine.preset("lianzhong_simple")
    tables = _small_plays(4)
    answers = _small_plays(5)
    wrong = [(a, t) for t in tables for a in answers
             if engine.beats(rules, a, t) is not _std_oracle(a, t)]
    assert not wrong[:10], f"{len(wrong)} disagreements, e.g. {wrong[:10]}"


def test_s4_roasting_matches_closed_form_on_every_small_play():
    rules = engine.preset("lianzhong_simple", roasting=True)
    tables = _small_plays(4)
    answers = _small_plays(8)
    wrong = [(a, t) for t in tables for a in answers
             if engine.beats(rules, a, t) is not _roasting_oracle(a, t)]
    assert not wrong[:10], f"{len(wrong)} disagreements, e.g. {wrong[:10]}"


def test_s1_is_play_for_every_small_play_and_mixed_ranks():
    rules = engine.preset("lianzhong_simple")
    for play in _small_plays(8):
        assert engine.is_play(rules, play), play
    for extra in ("9S", "9H"):
        for play in _small_plays(5):
            if any(c[0] in "782" for c in play):
                assert not engine.is_play(rules, play + [extra]), play + [extra]
