"""docs/rules.md §3 decks and hand sizes of every preset, §2.1 dealing, §6 presets and options."""

from __future__ import annotations

from collections import Counter

import pytest

from games import engine

from .helpers import PRESET_NAMES, by_rank, expected_deck, sview

DECK_SIZES = {"weihai": 165, "lianzhong_simple": 168, "lianzhong_classic": 168, "wuren": 216,
              "campus": 205, "laowang": 216, "pagat": 168}


def test_s6_preset_names():
    assert set(engine.PRESETS) == set(PRESET_NAMES)
    for name in PRESET_NAMES:
        engine.preset(name)


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_s3_expected_deck_sizes(name):
    assert sum(expected_deck(name).values()) == DECK_SIZES[name]


def _all_cards(name, seed):
    """Every card of a fresh seeded deal that the seats can see, plus what is set aside/travelling."""
    state = engine.new_deal(engine.preset(name), seed=seed)
    hands = [sview(state, s)["hand"] for s in range(5)]
    return state, hands


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_s3_a_dealt_deck_is_the_presets_deck(name):
    for seed in (1, 2, 3):
        state, hands = _all_cards(name, seed)
        dealt = Counter(c for h in hands for c in h)
        missing = expected_deck(name) - dealt
        extra = dealt - expected_deck(name)
        if name == "weihai":
            # which three 6s are missing is not specified: compare 6s by rank, the rest by code
            assert by_rank(dealt) == by_rank(expected_deck(name))
            assert {k: v for k, v in dealt.items() if k[0] != "6"} == \
                {k: v for k, v in expected_deck(name).items() if k[0] != "6"}
            continue
        assert not extra, f"cards not in the {name} deck: {extra}"
        if name == "laowang":
            assert missing == Counter({"BJ": 1}), "laowang sets one plain BJ aside (§3.6)"
        else:
            # a declined candidate's travelling pile (BJ* and 2s) is the only thing not in a hand
            pile = sview(state, 0).get("pile") or 0
            assert sum(missing.values()) == pile, missing


def test_s31_weihai_has_thirteen_6s_and_16_of_other_ranks():
    deck = expected_deck("weihai")
    state = engine.new_deal(engine.preset("weihai"), seed=7)
    dealt = Counter(c for s in range(5) for c in sview(state, s)["hand"])
    ranks = by_rank(dealt)
    assert ranks["6"] == 13
    for r in "789TJQKA2":
        assert ranks[r] == 16
    assert ranks["BJ"] + ranks["BJ*"] == 4 and ranks["BJ*"] == 1
    assert ranks["SJ"] + ranks["SJ*"] == 4 and ranks["SJ*"] == 1
    assert not any(c[0] in "345" for c in dealt)
    assert sum(dealt.values()) == sum(deck.values()) == 165


@pytest.mark.parametrize("name,marked", [
    ("weihai", {"BJ*": 1, "SJ*": 1}), ("lianzhong_simple", {"BJ*": 1, "SJ*": 1}),
    ("lianzhong_classic", {"BJ*": 1, "SJ*": 0}), ("wuren", {"BJ*": 1, "SJ*": 0}),
    ("campus", {"BJ*": 1, "SJ*": 0}), ("laowang", {"SJ*": 1, "BJ*": 0}), ("pagat", {"BJ*": 1, "SJ*": 1}),
])
def test_s3_marked_cards(name, marked):
    _state, hands = _all_cards(name, 11)
    dealt = Counter(c for h in hands for c in h)
    for code, n in marked.items():
        assert expected_deck(name)[code] == n
        if name == "wuren" and code == "BJ*":
            assert dealt[code] <= 1  # with the candidate, or travelling after an automatic decline
        else:
            assert dealt[code] == n, code


@pytest.mark.parametrize("name,sizes", [
    ("weihai", [33] * 5),
    ("lianzhong_simple", [34, 34, 34, 33, 33]),
    ("lianzhong_classic", [34, 34, 34, 33, 33]),
    ("pagat", [34, 34, 34, 33, 33]),
    ("laowang", [43] * 5),
])
def test_s21_hand_sizes_from_seat_0(name, sizes):
    for seed in (1, 2):
        state = engine.new_deal(engine.preset(name), seed=seed)
        counts = [len(sview(state, s)["hand"]) for s in range(5)]
        assert state.phase == "emperor_selection"
        pile = sview(state, 0).get("pile") or 0
        if name == "laowang":
            pile = 0  # the bottom BJ waits aside: 215 dealt
        assert sum(counts) + pile == sum(sizes)
        if not pile:
            assert counts == sizes


def test_s21_extra_cards_go_to_the_first_seats_dealt():
    state = engine.new_deal(engine.preset("lianzhong_simple"), seed=5, start_seat=3)
    counts = [len(sview(state, s)["hand"]) for s in range(5)]
    if not sview(state, 0).get("pile"):
        assert counts == [34, 33, 33, 34, 34]


def test_s34_wuren_43_each_and_BJ_star_to_the_candidate():
    for seed in range(1, 30):
        state = engine.new_deal(engine.preset("wuren"), seed=seed)
        if state.phase != "emperor_selection" or (sview(state, 0).get("pile") or 0) > 1:
            continue  # the random candidate declined automatically
        cand = sview(state, 0)["candidate"]
        pile = sview(state, 0).get("pile") or 0
        for s in range(5):
            h = sview(state, s)["hand"]
            assert len([c for c in h if c != "BJ*"]) == 43
            # BJ* is the candidate's: in his hand, or travelling with him until he accepts
            assert ("BJ*" in h) == (s == cand and pile == 0)
        assert sum(len(sview(state, s)["hand"]) for s in range(5)) + pile == 216
        return
    pytest.fail("no seed gave a candidate with a callable triple")


def test_s35_campus_205_cards_and_everyone_holds_exactly_one_3():
    for seed in (1, 2, 3, 4):
        state = engine.new_deal(engine.preset("campus"), seed=seed)
        hands = [sview(state, s)["hand"] for s in range(5)]
        dealt = Counter(c for h in hands for c in h)
        pile = sview(state, 0).get("pile") or 0
        assert sum(dealt.values()) + pile == 205
        assert not (dealt - expected_deck("campus"))
        if state.phase != "void":
            for h in hands:
                assert sum(1 for c in h if c[0] == "3") == 1, h


def test_s36_laowang_counts_above_10_are_hidden():
    state = engine.new_deal(engine.preset("laowang"), seed=3)
    assert pview(state)["counts"] == [">10"] * 5
    assert sview(state, 2)["counts"] == [">10"] * 5


def pview(state):
    return engine.public_view(state)


def test_s36_laowang_turned_card_belongs_to_the_candidate():
    state = engine.new_deal(engine.preset("laowang"), seed=9)
    view = pview(state)
    cand = view["candidate"]
    assert view.get("turned_card") is not None
    assert view["turned_card"] in sview(state, cand)["hand"]


def test_s21_deal_is_reproducible_from_the_seed():
    for name in PRESET_NAMES:
        a = engine.new_deal(engine.preset(name), seed=42)
        b = engine.new_deal(engine.preset(name), seed=42)
        assert engine.to_json(a) == engine.to_json(b)
        c = engine.new_deal(engine.preset(name), seed=43)
        assert [sview(a, s)["hand"] for s in range(5)] != [sview(c, s)["hand"] for s in range(5)]


def test_s1_hands_are_sorted_high_to_low():
    from .helpers import ordered_value
    state = engine.new_deal(engine.preset("wuren"), seed=4)
    for s in range(5):
        h = sview(state, s)["hand"]
        values = [ordered_value(c) for c in h]
        assert values == sorted(values, reverse=True)


# ---------------------------------------------------------------- §6 options

@pytest.mark.parametrize("name,options", [
    ("lianzhong_simple", {"qiangdu": True, "must_last": 6, "roasting": True}),
    ("lianzhong_simple", {"qiangdu": False}),
    ("lianzhong_simple", {"must_last": None}),
    ("lianzhong_classic", {"qiangdu": False, "must_last": 6, "roasting": True}),
])
def test_s6_valid_options(name, options):
    engine.preset(name, **options)


@pytest.mark.parametrize("name,options", [
    ("weihai", {"qiangdu": True}),
    ("weihai", {"roasting": True}),
    ("weihai", {"must_last": 6}),
    ("pagat", {"roasting": True}),
    ("wuren", {"qiangdu": False}),
    ("campus", {"must_last": 6}),
    ("laowang", {"roasting": True}),
    ("lianzhong_simple", {"kick": True}),
    ("lianzhong_simple", {"must_last": 5}),
])
def test_s6_an_option_a_preset_does_not_have_is_an_error(name, options):
    with pytest.raises(ValueError):
        engine.preset(name, **options)


def test_s6_unknown_preset_is_an_error():
    with pytest.raises(ValueError):
        engine.preset("shanghai")


# ---------------------------------------------------------------- docs/engine.md new_deal input checks

@pytest.mark.parametrize("hands", [
    [["BJ*", "3S"], [], [], [], []],  # weihai has no 3s
    [["BJ*", "ZZ"], [], [], [], []],  # not a card
    [["BJ*", "9S", "9S", "9S", "9S", "9S"], [], [], [], []],  # five copies of 9S
    [["BJ*", "SJ*"], ["SJ*"], [], [], []],  # two SJ*
    [["BJ*"], [], [], []],  # four hands
])
def test_contract_new_deal_rejects_hands_outside_the_deck(hands):
    with pytest.raises(ValueError):
        engine.new_deal(engine.preset("weihai"), hands=hands)


def test_contract_new_deal_accepts_short_hands_and_finds_the_BJ_star_holder():
    state = engine.new_deal(engine.preset("weihai"), hands=[["9S"], ["AH"], ["BJ*", "KS"], ["SJ*"], ["7D"]])
    assert state.phase == "emperor_selection"
    assert engine.to_act(state) == (2,)
    assert pview(state)["candidate"] == 2
    assert pview(state)["counts"] == [1, 1, 2, 1, 1]


def test_s1_a_deal_without_a_seed_draws_a_fresh_one():
    rules = engine.preset("pagat")
    a, b = engine.new_deal(rules), engine.new_deal(rules)
    assert [sview(a, s)["hand"] for s in range(5)] != [sview(b, s)["hand"] for s in range(5)]
