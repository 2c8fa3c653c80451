"""docs/client-guide.md §7 engine error codes: every IllegalAction the engine raises carries its stable code
and
leaves the state unchanged (`to_json` before == after), docs/rules.md §1/§2/§3 for the rule behind each."""

from __future__ import annotations

import pytest

from games import engine
from games.engine import Action

from .helpers import (
    ACCEPT,
    PASS,
    REVEAL,
    STAY,
    TRANSFER,
    C,
    P,
    act,
    assert_illegal,
    deal,
    run,
    stay_through_windows,
)

WEIHAI = ["BJ* AH KH", "SJ* QH", "9H 8H", "7H TH", "7S JS"]


def weihai_in_play(hands=WEIHAI):
    state = deal("weihai", hands)
    state = act(state, 0, ACCEPT)
    state = stay_through_windows(state)
    assert state.phase == "play"
    return state


def test_not_your_turn_in_emperor_selection():
    state = deal("weihai", WEIHAI)
    assert_illegal(state, 1, ACCEPT, "not_your_turn")


def test_not_your_turn_in_play():
    state = weihai_in_play()
    assert engine.public_view(state)["turn"] == 0
    assert_illegal(state, 2, P("9H"), "not_your_turn")
    assert_illegal(state, 1, PASS, "not_your_turn")


def test_not_your_turn_for_a_seat_that_already_answered_the_window():
    state = act(deal("weihai", WEIHAI), 0, ACCEPT)
    assert state.phase == "solo_window"
    state = act(state, 2, STAY)
    assert_illegal(state, 2, STAY, codes=("not_your_turn", "wrong_phase", "not_allowed"))
    assert_illegal(state, 0, STAY, codes=("not_your_turn", "wrong_phase"))  # the emperor is not asked


def test_wrong_phase_play_in_emperor_selection():
    state = deal("weihai", WEIHAI)
    assert_illegal(state, 0, P("AH"), "wrong_phase")


def test_wrong_phase_window_answer_in_play():
    state = weihai_in_play()
    assert_illegal(state, 0, STAY, "wrong_phase")
    assert_illegal(state, 0, ACCEPT, "wrong_phase")


def _weihai_over():
    state = weihai_in_play()
    # §1 turn flow: 0 leads BJ*, nobody can beat it; 0 goes out with AH then KH? (two cards left)
    state = run(state, [(0, "BJ*"), (1, "pass"), (2, "pass"), (3, "pass"), (4, "pass"),
                        (0, "AH"), (1, "SJ*"), (2, "pass"), (3, "pass"), (4, "pass"), (0, "pass"),
                        (1, "QH"), (2, "pass"), (3, "pass"), (4, "pass"), (0, "KH")])
    return state


def test_game_over_after_the_deal_ends():
    state = _weihai_over()
    assert state.phase == "over"
    for seat in range(5):
        assert engine.legal_actions(state, seat) == []
        assert_illegal(state, seat, PASS, "game_over")
        assert_illegal(state, seat, P("9H"), "game_over")


def test_not_a_play_mixed_ranks():
    state = weihai_in_play()
    assert_illegal(state, 0, P("AH KH"), "not_a_play")


def test_not_a_play_empty():
    state = weihai_in_play()
    assert_illegal(state, 0, Action("play", ()), codes=("not_a_play",))


def test_does_not_beat_a_lower_single():
    state = run(weihai_in_play(), [(0, "KH")])
    assert_illegal(state, 1, P("QH"), "does_not_beat")
    assert_illegal(state, 1, P("SJ* QH"), codes=("not_a_play", "does_not_beat"))


def test_does_not_beat_equal_rank():
    hands = ["BJ* KH 9H", "SJ* KS", "9S 8H", "7H TH", "7S JS"]
    state = run(weihai_in_play(hands), [(0, "KH")])
    assert_illegal(state, 1, P("KS"), "does_not_beat")


def test_must_play_last_weihai_6_with_another_card_left():
    hands = ["BJ* 6D 6H 9H", "SJ* QH", "9S 8H", "7H TH", "7S JS"]
    state = weihai_in_play(hands)
    assert_illegal(state, 0, P("6D 6H"), "must_play_last")
    assert_illegal(state, 0, P("BJ* 6D 6H"), "must_play_last")


def test_must_play_last_when_leading():
    hands = ["BJ* 6D 9H", "SJ* QH", "9S 8H", "7H TH", "7S JS"]
    state = weihai_in_play(hands)
    assert_illegal(state, 0, P("6D"), "must_play_last")


def test_cannot_pass_lead():
    state = weihai_in_play()
    assert_illegal(state, 0, PASS, "cannot_pass_lead")


def test_card_not_in_hand():
    state = weihai_in_play()
    assert_illegal(state, 0, P("2S"), "card_not_in_hand")
    assert_illegal(state, 0, P("AH AH"), codes=("card_not_in_hand",))
    assert_illegal(state, 0, P("SJ*"), "card_not_in_hand")


def test_not_allowed_weihai_candidate_cannot_decline():
    state = deal("weihai", WEIHAI)
    assert_illegal(state, 0, Action("decline"), "not_allowed")


def test_not_allowed_transfer_without_the_guard_card():
    state = deal("weihai", WEIHAI)
    assert_illegal(state, 0, TRANSFER, "not_allowed")


def test_not_allowed_commoner_reveal():
    state = act(deal("weihai", WEIHAI), 0, ACCEPT)
    state = stay_through_windows_until(state, "declaration_window")
    assert_illegal(state, 2, REVEAL, "not_allowed")


def test_not_allowed_rebel_in_lianzhong_classic():
    hands = ["BJ* 9H 9H 9H KS", "9H QS", "8S 8H", "7S 7H", "TS TH"]
    state = act(deal("lianzhong_classic", hands), 0, ACCEPT)
    state = act(state, 0, C("9H"))
    state = stay_through_windows_until(state, "declaration_window")
    assert_illegal(state, 2, Action("rebel"), "not_allowed")


def stay_through_windows_until(state, phase):
    from .helpers import answer_window
    while state.phase != phase:
        state = answer_window(state)
    return state


@pytest.mark.parametrize("card", ["KS", "AH", "2H", "BJ", "SJ", "9S"])
def test_bad_call_wuren(card):
    # §3.4: three identical suited cards, not jokers, not 2s
    hands = ["9H 9H 9H KS KS 2H 2H 2H SJ SJ SJ AH", "9H", "8S", "7S", "TS"]
    state = deal("wuren", hands, candidate=0)
    state = act(state, 0, ACCEPT)
    assert state.phase == "call"
    assert_illegal(state, 0, C(card), "bad_call")


def test_bad_call_lianzhong_classic_two_copies():
    hands = ["BJ* 9H 9H 9H KS KS", "9H QS", "8S 8H", "7S 7H", "TS TH"]
    state = act(deal("lianzhong_classic", hands), 0, ACCEPT)
    assert state.phase == "call"
    assert_illegal(state, 0, C("KS"), "bad_call")
    assert_illegal(state, 0, C("BJ"), "bad_call")


def test_bad_call_campus_other_player_lacks_the_rank():
    # §3.5: the emperor may call 9H only if each of the four others holds a 9 of any suit
    hands = ["BJ* 3S 9H 9H 9H KH KH KH", "3H 9S KS", "3C 9C KC", "3D 9D", "3S 9D KD"]
    state = act(deal("campus", hands), 0, ACCEPT)
    assert state.phase == "call"
    assert_illegal(state, 0, C("KH"), "bad_call")
    assert_illegal(state, 0, C("3S"), "bad_call")
    state2 = act(state, 0, C("9H"))
    assert state2.phase != "call"


def test_not_allowed_guard_cannot_rebel_and_commoner_cannot_kick_in_declaration_window():
    state = act(deal("weihai", WEIHAI), 0, ACCEPT)
    state = stay_through_windows_until(state, "declaration_window")
    assert_illegal(state, 1, Action("rebel"), "not_allowed")
    assert_illegal(state, 2, Action("kick"), codes=("not_allowed", "wrong_phase"))
    assert_illegal(state, 2, Action("solo"), codes=("not_allowed", "wrong_phase"))


def test_not_allowed_second_transfer():
    hands = ["BJ* SJ* AH", "QH", "9H 8H", "7H TH", "7S JS"]
    state = act(deal("weihai", hands), 0, TRANSFER)
    assert_illegal(state, 2, TRANSFER, "not_allowed")


def test_wrong_phase_play_during_call():
    hands = ["BJ* 9H 9H 9H KS", "9H QS", "8S 8H", "7S 7H", "TS TH"]
    state = act(deal("lianzhong_classic", hands), 0, ACCEPT)
    assert_illegal(state, 0, P("KS"), "wrong_phase")
    assert_illegal(state, 1, C("9H"), codes=("not_your_turn", "wrong_phase"))


def test_game_over_in_a_void_deal():
    hands = ["BJ* 9H 9H", "8S 8S", "7C 7C", "TD TD", "JH JH"]
    state = deal("lianzhong_classic", hands)
    seat = 0
    for _ in range(10):
        state = act(state, seat, Action("decline"))
        seat = (seat - 1) % 5
    assert state.phase == "void"
    assert_illegal(state, seat, ACCEPT, "game_over")
