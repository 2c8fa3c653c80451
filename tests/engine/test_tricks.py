"""docs/rules.md §1 turn flow (soft pass, trick end, going out, 接风, skipping players who are out),
must-play-last (憋6 / 憋三), legal-action listing (docs/engine.md "Listing"), the special comparisons of
§3.5, §3.6 and §4 inside a deal, and the §5 trustee policy."""

from __future__ import annotations

from collections import Counter

import pytest

from games import engine
from games.engine import Action

from .helpers import (
    ACCEPT,
    PASS,
    C,
    P,
    act,
    answer_window,
    assert_illegal,
    deal,
    hand,
    legal_of,
    play_multiset,
    pview,
    run,
    stay_through_windows,
)


def in_play(preset, hands, emperor=0, **kwargs):
    state = act(deal(preset, hands, **kwargs), emperor, ACCEPT)
    state = stay_through_windows(state)
    assert state.phase == "play"
    return state


SOFT = ["BJ* 7H AH", "SJ* 9S QH", "8H TH", "9H JH", "8S KS"]


def test_s1_the_emperor_leads_the_first_trick():
    state = in_play("weihai", SOFT)
    assert pview(state)["turn"] == 0
    assert pview(state)["table"] is None
    assert engine.to_act(state) == (0,)


def test_s1_pass_is_soft_a_passed_player_gets_a_new_chance():
    state = in_play("weihai", SOFT)
    state = run(state, [(0, "7H"), (1, "pass"), (2, "8H")])
    view = pview(state)
    assert view["table"] == {"seat": 2, "cards": ["8H"], "bomb": False} or \
        (view["table"]["seat"] == 2 and view["table"]["cards"] == ["8H"])
    assert view["passed"] == []
    assert view["turn"] == 3
    state = run(state, [(3, "pass"), (4, "pass")])
    assert sorted(pview(state)["passed"]) == [3, 4]
    state = run(state, [(0, "pass")])
    assert pview(state)["turn"] == 1, "seat 1 passed before, but a later play gives him a new chance"
    state = run(state, [(1, "9S")])
    assert pview(state)["table"]["seat"] == 1


def test_s1_the_trick_ends_when_all_others_passed_and_its_player_leads():
    state = in_play("weihai", SOFT)
    state = run(state, [(0, "7H"), (1, "pass"), (2, "8H"), (3, "pass"), (4, "pass"), (0, "pass"),
                        (1, "pass")])
    view = pview(state)
    assert view["table"] is None
    assert view["turn"] == 2
    assert view["passed"] == []
    assert_illegal(state, 2, PASS, "cannot_pass_lead")


def test_s1_going_out_places_and_jiefeng_to_the_next_seat_holding_cards():
    hands = ["BJ* AH", "SJ* QH", "8H TH", "9H JH", "8S KS"]
    state = in_play("weihai", hands)
    state = run(state, [(0, "BJ*"), (1, "pass"), (2, "pass"), (3, "pass"), (4, "pass"), (0, "AH")])
    view = pview(state)
    assert view["places"][0] == 1
    assert view["counts"][0] == 0
    assert view["table"]["seat"] == 0, "his last play still stands"
    state = run(state, [(1, "pass"), (2, "pass"), (3, "pass"), (4, "pass")])
    view = pview(state)
    assert view["table"] is None
    assert view["turn"] == 1, "接风: the next player after him who still holds cards leads"


def test_s1_jiefeng_skips_players_already_out():
    hands = ["BJ* 7S 7H", "SJ* 8H 8D", "TH", "9H", "JS QS"]
    state = in_play("weihai", hands)
    state = run(state, [(0, "7S"), (1, "pass"), (2, "pass"), (3, "9H")])
    assert pview(state)["places"][3] == 1
    state = run(state, [(4, "pass"), (0, "pass"), (1, "pass"), (2, "TH")])
    assert pview(state)["places"][2] == 2
    assert state.phase == "play"
    state = run(state, [(4, "pass"), (0, "pass"), (1, "pass")])
    view = pview(state)
    assert view["table"] is None
    assert view["turn"] == 4, "after seat 2 the next seat, 3, is out too: seat 4 leads"


def test_s1_players_who_are_out_are_skipped_in_turn_order():
    hands = ["BJ* 7S 7H", "SJ* 8H", "9H TH", "JH QH", "KS AS"]
    state = in_play("weihai", hands)
    state = run(state, [(0, "7S"), (1, "8H")])
    assert pview(state)["places"][1] is None  # SJ* still in hand
    state = run(state, [(2, "9H"), (3, "JH"), (4, "AS"), (0, "pass"), (1, "SJ*")])
    assert pview(state)["places"][1] == 1
    assert pview(state)["turn"] == 2
    state = run(state, [(2, "pass"), (3, "pass"), (4, "pass"), (0, "BJ*")])
    assert pview(state)["turn"] == 2, "seat 1 is out and is skipped"


# ---------------------------------------------------------------- legal actions listing

def test_contract_interchangeable_cards_are_listed_once():
    state = in_play("weihai", ["BJ* 9S 9H 9D", "SJ* QH", "8H TH", "9C JH", "8S KS"])
    plays = [play_multiset(a.cards) for a in legal_of(state, 0, "play")]
    expected = [Counter({"9": 1}), Counter({"9": 2}), Counter({"9": 3}), Counter({"BJ*": 1}),
                Counter({"BJ*": 1, "9": 1}), Counter({"BJ*": 1, "9": 2}), Counter({"BJ*": 1, "9": 3})]
    assert sorted(map(sorted_items, plays)) == sorted(map(sorted_items, expected))
    assert not legal_of(state, 0, "pass")


def sorted_items(counter):
    return tuple(sorted(counter.items()))


@pytest.mark.parametrize("cards", [("9D",), ("9H",), ("9H", "9S"), ("9D", "BJ*", "9S"), ("9S", "9H", "9D")])
def test_contract_any_codes_of_a_legal_play_in_any_order_are_accepted(cards):
    state = in_play("weihai", ["BJ* 9S 9H 9D", "SJ* QH", "8H TH", "9C JH", "8S KS"])
    state = act(state, 0, Action("play", cards))
    assert Counter(pview(state)["table"]["cards"]) == Counter(cards)
    assert Counter(hand(state, 0)) == Counter(["BJ*", "9S", "9H", "9D"]) - Counter(cards)


def test_contract_follower_legal_plays_all_beat_and_pass_is_listed():
    state = in_play("weihai", ["BJ* 8S 8H", "SJ* QH QS 7H", "9H TH", "9C JH", "8S KS"])
    state = act(state, 0, P("8S 8H"))
    plays = legal_of(state, 1, "play")
    assert legal_of(state, 1, "pass")
    assert sorted(sorted_items(play_multiset(a.cards)) for a in plays) == sorted(
        [sorted_items(Counter({"Q": 2})), sorted_items(Counter({"SJ*": 1, "Q": 1}))])
    for action in plays:
        assert engine.beats(engine.preset("weihai"), list(action.cards), ["8S", "8H"])


# ---------------------------------------------------------------- must play last (憋6 / 憋三)

def test_s1_weihai_6s_are_only_listed_in_a_play_that_empties_the_hand():
    state = in_play("weihai", ["BJ* 6D 6H 9H", "SJ* QH", "8H TH", "9C JH", "8S KS"])
    plays = legal_of(state, 0, "play")
    for action in plays:
        if any(c[0] == "6" for c in action.cards):
            assert len(action.cards) == 4
    assert any(Counter(a.cards) == Counter(["BJ*", "6D", "6H", "9H"]) for a in plays) is False  # mixed ranks
    state2 = in_play("weihai", ["BJ* 6D 6H", "SJ* QH", "8H TH", "9C JH", "8S KS"])
    plays2 = [Counter(a.cards) for a in legal_of(state2, 0, "play")]
    assert Counter(["BJ*", "6D", "6H"]) in plays2, "D: jokers may be part of the final play"
    assert Counter(["6D", "6H"]) not in plays2
    assert Counter(["BJ*"]) in plays2
    state3 = act(state2, 0, P("BJ* 6D 6H"))
    assert pview(state3)["places"][0] == 1


def test_s32_lianzhong_6s_are_free_unless_must_last_is_set():
    hands = ["BJ* 6D 9H", "SJ* QH", "8H TH", "9C JH", "8S KS"]
    state = in_play("lianzhong_simple", hands)
    act(state, 0, P("6D"))
    state = in_play(engine.preset("lianzhong_simple", must_last=6), hands)
    assert_illegal(state, 0, P("6D"), "must_play_last")


def test_s35_campus_3_must_go_last():
    hands = ["BJ* 9H 9H 9H 3S KS", "9H QS 3H", "9S 8H 3C", "9C 7H 3D", "9D TH 3S"]
    state = act(act(deal("campus", hands), 0, ACCEPT), 0, C("9H"))
    state = answer_window(state)
    assert_illegal(state, 0, P("3S"), "must_play_last")
    for action in legal_of(state, 0, "play"):
        assert not any(c[0] == "3" for c in action.cards)


# ---------------------------------------------------------------- special comparisons in a deal

def test_s4_roasting_in_play_more_cards_over_a_joker_play():
    rules = engine.preset("lianzhong_simple", roasting=True)
    hands = ["BJ* 7S 7H 7C 7D", "SJ* QH", "BJ BJ 8S 8H 8C 8D", "9C JH", "8S KS"]
    state = in_play(rules, hands)
    state = act(state, 0, P("BJ* 7S 7H 7C 7D"))
    state = act(state, 1, PASS)
    plays = [Counter(a.cards) for a in legal_of(state, 2, "play")]
    assert Counter(["BJ", "BJ", "8S", "8H", "8C", "8D"]) in plays
    state = act(state, 2, P("BJ BJ 8S 8H 8C 8D"))
    assert pview(state)["table"]["seat"] == 2


def test_s36_laowang_two_kill_and_lao_wang_in_play():
    hands = ["AH KH", "BJ BJ QH", "SJ* 9H", "9C JH", "8S KS"]
    state = act(deal("laowang", hands, candidate=0), 0, ACCEPT)
    assert state.phase == "play"
    state = act(state, 0, P("BJ"))  # the bottom BJ
    plays = [Counter(a.cards) for a in legal_of(state, 1, "play")]
    assert Counter(["BJ", "BJ"]) in plays, "two-kill: BJ BJ over BJ"
    state = act(state, 1, P("BJ BJ"))
    plays = [Counter(a.cards) for a in legal_of(state, 2, "play")]
    assert plays == [], "nothing beats BJ BJ for seat 2 (SJ* alone is one card)"
    state = run(state, [(2, "pass"), (3, "pass"), (4, "pass"), (0, "pass")])
    assert pview(state)["turn"] == 1
    state = run(state, [(1, "QH"), (2, "pass"), (3, "pass"), (4, "KS"), (0, "AH")])
    # seat 2 can kill the ace with 老王 SJ*; check 老王 also beats a plain BJ
    assert Counter(["SJ*"]) in [Counter(a.cards) for a in legal_of(state, 2, "play")]


def test_s36_lao_wang_beats_a_big_joker_in_play():
    hands = ["AH KH", "BJ QH", "SJ* 9H", "9C JH", "8S KS"]
    state = act(deal("laowang", hands, candidate=1), 1, ACCEPT)
    state = act(state, 1, P("BJ"))
    assert Counter(["SJ*"]) in [Counter(a.cards) for a in legal_of(state, 2, "play")]
    state = act(state, 2, P("SJ*"))
    state = act(state, 3, PASS)
    state = act(state, 4, PASS)
    state = act(state, 0, PASS)
    assert legal_of(state, 1, "play") == [], "a BJ does not beat 老王"


def test_s36_laowang_2_attaches_in_play():
    hands = ["QS QH QC 2S", "AH", "JS JH JC JD 9H", "SJ* 9C", "8S KS"]
    state = act(deal("laowang", hands, candidate=2), 2, ACCEPT)
    state = act(state, 2, P("JS JH JC JD"))
    state = act(state, 3, PASS)
    state = act(state, 4, PASS)
    plays = [Counter(a.cards) for a in legal_of(state, 0, "play")]
    assert Counter(["2S", "QS", "QH", "QC"]) in plays
    state = act(state, 0, P("2S QS QH QC"))
    assert pview(state)["places"][0] == 1


def campus_in_play(hands, declaration=None):
    state = act(act(deal("campus", hands), 0, ACCEPT), 0, C("9H"))
    state = answer_window(state, declaration or {})
    assert state.phase == "play"
    return state


def test_s35_campus_te_wang_beats_BJ_and_attaches_like_a_joker():
    hands = ["BJ* 9H 9H 9H KS", "9H QS KH KD", "9S 8H", "9C 7H", "9D TH"]
    state = campus_in_play(hands)
    state = act(state, 0, P("BJ*"))
    plays = [Counter(a.cards) for a in legal_of(state, 1, "play")]
    assert Counter(["9H"]) in plays, "特王 ranks above BJ"
    state = campus_in_play(hands)
    state = act(state, 0, P("9H 9H 9H"))
    plays = [Counter(a.cards) for a in legal_of(state, 1, "play")]
    assert Counter(["9H", "KH", "KD"]) in plays, "特王 attaches to a set like a joker"
    state = act(state, 1, P("9H KH KD"))
    assert pview(state)["table"]["seat"] == 1


def test_s35_campus_bomb_beats_any_play_and_nothing_beats_a_bomb():
    hands = ["BJ* 9H 9H 9H BJ", "9H QS", "9S KH KH KH KH", "9C SJ SJ SJ SJ", "9D AS AH AC AD"]
    state = campus_in_play(hands)
    state = act(state, 0, P("BJ* BJ"))
    state = act(state, 1, PASS)
    plays = [Counter(a.cards) for a in legal_of(state, 2, "play")]
    assert Counter(["KH"] * 4) in plays
    state = act(state, 2, P("KH KH KH KH"))
    assert pview(state)["table"]["bomb"] is True
    for seat in (3, 4):
        assert legal_of(state, seat, "play") == [], "炸弹无大无小: nothing beats a bomb"
        assert_illegal(state, seat, P("AS AH AC AD") if seat == 4 else P("SJ SJ SJ SJ"),
                       codes=("does_not_beat", "card_not_in_hand"))
        state = act(state, seat, PASS)


def test_s35_campus_a_bomb_led_is_only_a_four_card_set():
    hands = ["BJ* 9H 9H 9H KH KH KH KH", "9H QS", "9S 8H", "9C 7H", "9D AS AH AC AD"]
    state = campus_in_play(hands)
    state = act(state, 0, P("KH KH KH KH"))
    assert pview(state)["table"]["bomb"] is False
    state = run(state, [(1, "pass"), (2, "pass"), (3, "pass")])
    plays = [Counter(a.cards) for a in legal_of(state, 4, "play")]
    assert Counter(["AS", "AH", "AC", "AD"]) in plays


def test_s35_campus_a_bomb_beats_a_led_four_card_set():
    hands = ["BJ* 9H 9H 9H KH KH KH KH", "9H QS", "9S 4D 4D 4D 4D", "9C 7H", "9D AS"]
    state = campus_in_play(hands)
    state = act(state, 0, P("KH KH KH KH"))
    state = act(state, 1, PASS)
    plays = [Counter(a.cards) for a in legal_of(state, 2, "play")]
    assert Counter(["4D"] * 4) in plays, "a bomb beats any play, a led four-card set included"
    state = act(state, 2, P("4D 4D 4D 4D"))
    assert pview(state)["table"]["bomb"] is True


def test_s35_campus_2s_carry_no_jokers_in_play():
    hands = ["BJ* 9H 9H 9H SJ 2S 2H", "9H QS", "9S 8H", "9C 7H", "9D TH"]
    state = campus_in_play(hands)
    for action in legal_of(state, 0, "play"):
        ranks = {c[0] for c in action.cards}
        if "2" in ranks:
            assert all(c[0] == "2" for c in action.cards), action


# ---------------------------------------------------------------- §5 trustee

def test_s5_trustee_leader_plays_the_smallest_single_follower_passes():
    state = in_play("weihai", ["BJ* 9H 7H AH", "SJ* QH", "8H TH", "9C JH", "8S KS"])
    action = engine.trustee_action(state, 0)
    assert action.type == "play" and play_multiset(action.cards) == Counter({"7": 1})
    state = act(state, 0, action)
    assert engine.trustee_action(state, 1).type == "pass"


def test_s5_trustee_must_last_hand_plays_what_it_must():
    state = in_play("weihai", ["BJ* 6H 6D", "SJ* QH", "8H TH", "9C JH", "8S KS"])
    state = run(state, [(0, "BJ*"), (1, "pass"), (2, "pass"), (3, "pass"), (4, "pass")])
    action = engine.trustee_action(state, 0)
    assert Counter(action.cards) == Counter(["6H", "6D"])


def test_s5_trustee_in_selection_windows_and_call():
    # lianzhong: the first decline is free -> trustee declines; a later one (贴2) -> accept
    state = deal("lianzhong_simple", ["BJ* 2H KH", "2S QH", "SJ* 9H", "AH 8H", "2D 2C 7H"])
    assert engine.trustee_action(state, 0).type == "decline"
    state = act(state, 0, engine.trustee_action(state, 0))
    assert engine.trustee_action(state, 4).type == "accept"
    # weihai cannot decline: accept, never transfer or solo
    state = deal("weihai", ["BJ* SJ* AH", "QH", "9H 8H", "7H TH", "7S JS"])
    assert engine.trustee_action(state, 0).type == "accept"
    state = act(state, 0, ACCEPT)
    for seat in engine.to_act(state):
        assert engine.trustee_action(state, seat).type == "stay"
    # call: the highest callable card the preset allows
    state = act(deal("lianzhong_classic", ["BJ* 9H 9H 9H KS KS KS", "9H KS", "8S", "7S", "TS"]), 0, ACCEPT)
    assert engine.trustee_action(state, 0) == C("KS")
