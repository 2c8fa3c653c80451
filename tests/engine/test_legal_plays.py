"""docs/rules.md §1 "A play", "Beating", "Must-play-last" and §4 as seen through `legal_actions`: for random
small hands and tables, the plays listed are exactly the distinct plays of the hand (up to
interchangeable cards) that the spec allows — as leader every play, as follower every play that
beats the table — each listed once, and pass listed only for a follower."""

from __future__ import annotations

from collections import Counter
from itertools import product

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from games import engine

from .helpers import ACCEPT, act, deal, play_multiset, stay_through_windows
from .test_plays import _roasting_oracle, _std_oracle

PLAIN = [r + s for r in "789TJQKA2" for s in "SH"] + ["SJ", "BJ"]


def _classes(hand):
    groups = {}
    for code in hand:
        key = code if code.endswith("*") or code in ("SJ", "BJ") else code[0]
        groups.setdefault(key, []).append(code)
    return groups


def _sub_plays(hand):
    groups = _classes(hand)
    keys = sorted(groups)
    for counts in product(*(range(len(groups[k]) + 1) for k in keys)):
        cards = [c for k, n in zip(keys, counts) for c in groups[k][:n]]
        if cards:
            yield cards


def _is_play_spec(cards):
    naturals = {c[0] for c in cards if not c.startswith(("BJ", "SJ"))}
    return len(naturals) <= 1


def _key(cards):
    return tuple(sorted(play_multiset(cards).items()))


def _expected(hand, table, *, roasting=False, must_last=None):
    out = set()
    for cards in _sub_plays(hand):
        if not _is_play_spec(cards):
            continue
        if must_last and any(c[0] == must_last for c in cards) and len(cards) != len(hand):
            continue
        if table is None:
            out.add(_key(cards))
        elif (_roasting_oracle(cards, table) if roasting else _std_oracle(cards, table)):
            out.add(_key(cards))
    return out


def _state(preset, hand, table):
    """Seat 0 (emperor, BJ* holder) leads `table` (or leads nothing: then seat 0 is to act with
    `hand`); seat 1 holds `hand`."""
    if table is None:
        hands = [["BJ*"] + hand, ["SJ*", "7D"], ["7C"], ["8C"], ["8D"]]
    else:
        hands = [["BJ*", "7D"] + table, ["SJ*"] + hand if "SJ*" not in hand else hand, ["7C"], ["8C"], ["8D"]]
    state = stay_through_windows(act(deal(preset, hands), 0, ACCEPT))
    assert state.phase == "play"
    if table is None:
        return state, 0, ["BJ*"] + hand
    state = act(state, 0, engine.Action("play", tuple(table)))
    seat_hand = hands[1]
    return state, 1, seat_hand


hand_st = st.lists(st.sampled_from(PLAIN), min_size=1, max_size=7).filter(
    lambda h: all(n <= 4 for n in Counter(h).values()) and Counter(h)["BJ"] <= 3 and Counter(h)["SJ"] <= 3)


def _table_st():
    rank = st.sampled_from("89TJQK")
    return st.builds(lambda r, m, b, s: [r + "C"] * m + ["BJ"] * b + ["SJ"] * s,
                     rank, st.integers(0, 3), st.integers(0, 1), st.integers(0, 1)).filter(lambda t: t)


@pytest.mark.parametrize("preset,roasting", [("lianzhong_simple", False), ("pagat", False),
                                             ("lianzhong_simple", True)])
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(hand=hand_st, table=st.one_of(st.none(), _table_st()))
def test_s1_legal_plays_are_exactly_the_spec_plays(preset, roasting, hand, table):
    rules = engine.preset(preset, roasting=True) if roasting else engine.preset(preset)
    if table is not None and Counter(table)["BJ"] + Counter(hand)["BJ"] > 3:
        return
    if table is not None and Counter(table)["SJ"] + Counter(hand)["SJ"] > 3:
        return
    if table is not None and any(Counter(table)[c] + Counter(hand)[c] > 4 for c in table):
        return
    state, seat, seat_hand = _state(rules, hand, table)
    legal = engine.legal_actions(state, seat)
    plays = [a for a in legal if a.type == "play"]
    keys = [_key(a.cards) for a in plays]
    assert len(keys) == len(set(keys)), "a play is listed twice"
    assert set(keys) == _expected(seat_hand, table, roasting=roasting)
    assert any(a.type == "pass" for a in legal) is (table is not None)
    for action in plays:
        assert not (Counter(action.cards) - Counter(seat_hand)), "a listed play uses cards not in hand"


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(hand=hand_st.map(lambda h: h + ["6H"]), table=st.one_of(st.none(), _table_st()))
def test_s1_weihai_legal_plays_respect_must_last_6(hand, table):
    if table is not None and (Counter(table)["BJ"] + Counter(hand)["BJ"] > 3 or
                              Counter(table)["SJ"] + Counter(hand)["SJ"] > 3 or
                              any(Counter(table)[c] + Counter(hand)[c] > 4 for c in table)):
        return
    state, seat, seat_hand = _state("weihai", hand, table)
    plays = [a for a in engine.legal_actions(state, seat) if a.type == "play"]
    assert {_key(a.cards) for a in plays} == _expected(seat_hand, table, must_last="6")


def test_contract_marked_BJ_star_is_not_interchangeable_with_BJ_in_the_listing():
    """The lead's decision: plays are listed once up to interchangeable cards, and a marked card
    (BJ*, SJ*) is never interchangeable with its plain joker."""
    state = stay_through_windows(act(deal("weihai", ["BJ* BJ 9S", "SJ* 7D", "7C", "8C", "8D"]), 0, ACCEPT))
    plays = {tuple(sorted(a.cards)) for a in engine.legal_actions(state, 0) if a.type == "play"}
    assert ("BJ*",) in plays and ("BJ",) in plays
    assert ("9S", "BJ*") in plays and ("9S", "BJ") in plays


def test_contract_marked_SJ_star_is_listed_apart_from_SJ():
    state = stay_through_windows(act(deal("weihai", ["BJ* 9S", "SJ* SJ 7D", "7C", "8C", "8D"]), 0, ACCEPT))
    state = act(state, 0, engine.Action("play", ("9S",)))
    plays = {tuple(a.cards) for a in engine.legal_actions(state, 1) if a.type == "play"}
    assert ("SJ*",) in plays and ("SJ",) in plays


# ---------------------------------------------------------------- laowang and campus follower listings

VALUE = {r: i + 3 for i, r in enumerate("3456789TJQKA2")}


def _laowang_value(code):
    if code == "SJ*":
        return 18  # 老王 above BJ (§3.6)
    if code.startswith("BJ"):
        return 17
    if code.startswith("SJ"):
        return 16
    return VALUE[code[0]]


def _laowang_is_play(cards):
    ranks = {c[0] for c in cards if not c.startswith(("BJ", "SJ"))}
    return len(ranks - {"2"}) <= 1  # 2s attach to another rank (§3.6)


def _pairwise(answer, table, value):
    a = sorted((value(c) for c in answer), reverse=True)
    t = sorted((value(c) for c in table), reverse=True)
    return len(a) == len(t) and all(x > y for x, y in zip(a, t))


def _laowang_beats(answer, table):
    k = len(answer) - len(table)
    if k == 0:
        return _pairwise(answer, table, _laowang_value)
    if k < 0 or k > table.count("BJ") or answer.count("BJ") < 2 * k:
        return False
    a, t = list(answer), list(table)
    for _ in range(2 * k):
        a.remove("BJ")
    for _ in range(k):
        t.remove("BJ")
    return _pairwise(a, t, _laowang_value)


def _campus_value(code):
    return 17 if code.startswith("BJ") else 16 if code.startswith("SJ") else VALUE[code[0]]


def _campus_is_play(cards):
    ranks = {c[0] for c in cards if not c.startswith(("BJ", "SJ"))}
    if len(ranks) > 1:
        return False
    return not (ranks == {"2"} and any(c.startswith(("BJ", "SJ")) for c in cards))


def _campus_bomb(cards):
    return len(cards) == 4 and len(set(cards)) == 1 and cards[0][0] not in "32" and cards[0][1] in "SHCD"


def _campus_beats(answer, table):
    if _campus_bomb(answer):
        return True  # the table here was led, so it is never a bomb
    return _pairwise(answer, table, _campus_value)


LAOWANG_POOL = [r + s for r in "89TJQK2" for s in "SH"] + ["SJ", "BJ", "SJ*"]
CAMPUS_POOL = ["KH", "KH", "KH", "KH", "QS", "QH", "2S", "2H", "SJ", "BJ", "JS", "JS", "3S"]


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(hand=st.lists(st.sampled_from(LAOWANG_POOL), min_size=1, max_size=7).filter(
    lambda h: all(n <= 2 for n in Counter(h).values()) and h.count("SJ*") <= 1),
    table=st.sampled_from(["BJ", "BJ QC QC", "SJ 9C 9C", "2C JC JC JC", "TC", "9C 9C", "BJ BJ", "QC QC QC QC",
                           "SJ* 8C"]))
def test_s36_laowang_follower_plays_are_exactly_the_spec_plays(hand, table):
    table = table.split()
    total = Counter(table) + Counter(hand)
    assume(total["BJ"] <= 3 and total["SJ"] <= 3 and total["SJ*"] <= 1 and max(total.values()) <= 4)
    hands = [table + ["7D"], hand, ["7C"], ["8C"], ["8D"]]
    state = act(deal("laowang", hands, candidate=0), 0, ACCEPT)
    assert state.phase == "play"
    state = act(state, 0, engine.Action("play", tuple(table)))
    plays = [a for a in engine.legal_actions(state, 1) if a.type == "play"]
    keys = [_key(a.cards) for a in plays]
    assert len(keys) == len(set(keys))
    expected = {_key(c) for c in _sub_plays(hand) if _laowang_is_play(c) and _laowang_beats(c, table)}
    assert set(keys) == expected


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(hand=st.lists(st.sampled_from(range(len(CAMPUS_POOL))), min_size=1, max_size=8, unique=True).map(
    lambda idx: [CAMPUS_POOL[i] for i in idx]),
    table=st.sampled_from(["BJ", "TC TC", "SJ 8C 8C", "9C 9C 9C 9D", "2C", "AC AC AC AC", "8C"]))
def test_s35_campus_follower_plays_are_exactly_the_spec_plays(hand, table):
    table = table.split()
    hands = [["BJ*", "9H", "9H", "9H", "7D"] + table, hand + ["9S"], ["9C"], ["9D"], ["9S"]]
    state = act(deal("campus", hands), 0, ACCEPT)
    state = act(state, 0, engine.Action("call", card="9H"))
    state = stay_through_windows(state)
    assert state.phase == "play"
    state = act(state, 0, engine.Action("play", tuple(table)))
    plays = [a for a in engine.legal_actions(state, 1) if a.type == "play"]
    keys = [_key(a.cards) for a in plays]
    assert len(keys) == len(set(keys))
    seat_hand = hand + ["9S"]
    expected = set()
    for cards in _sub_plays(seat_hand):
        if any(c[0] == "3" for c in cards) and len(cards) != len(seat_hand):
            continue  # 憋三
        if _campus_is_play(cards) and _campus_beats(cards, table):
            expected.add(_key(cards))
    assert set(keys) == expected
