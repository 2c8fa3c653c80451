"""docs/rules.md §2.3 emperor selection and §2.4 guard call, per preset (§3.1–§3.7), with scripted hands."""

from __future__ import annotations

from collections import Counter

import pytest

from games import engine
from games.engine import Action

from .helpers import ACCEPT, SOLO, TRANSFER, C, act, deal, hand, legal_types, one_legal, pview, sview

DECLINE = Action("decline")


def decline(state, seat):
    """Decline with whatever the engine lists (a decline may carry the attached card)."""
    return act(state, seat, one_legal(state, seat, "decline"))


# ---------------------------------------------------------------- §3.1 weihai

W = ["BJ* AH KH", "SJ* QH", "9H 8H", "7H TH", "7S JS"]


def test_s31_weihai_candidate_is_the_BJ_star_holder_and_cannot_decline():
    state = deal("weihai", ["9H", "AH", "BJ* KS", "SJ* QH", "7D"])
    assert engine.to_act(state) == (2,)
    assert pview(state)["candidate"] == 2
    assert legal_types(state, 2) == {"accept", "solo"}


def test_s31_weihai_holder_of_both_may_accept_solo_or_transfer():
    state = deal("weihai", ["BJ* SJ* AH", "QH", "9H 8H", "7H TH", "7S JS"])
    assert legal_types(state, 0) == {"accept", "solo", "transfer"}


def test_s31_weihai_accept_with_both_is_a_hidden_solo():
    state = act(deal("weihai", ["BJ* SJ* AH", "QH", "9H 8H", "7H TH", "7S JS"]), 0, ACCEPT)
    assert sview(state, 0)["roles"][0] == "soloist"
    assert pview(state)["roles"][0] == "emperor"
    assert pview(state)["emperor"] == 0
    for s in range(1, 5):
        assert sview(state, s)["roles"][0] == "emperor"
        assert sview(state, s)["roles"][s] in (None, "commoner")


def test_s31_weihai_solo_with_both_is_an_open_solo():
    state = act(deal("weihai", ["BJ* SJ* AH", "QH", "9H 8H", "7H TH", "7S JS"]), 0, SOLO)
    assert pview(state)["roles"][0] == "soloist"
    assert state.phase == "kick_window"  # no solo or declaration window after an open solo


@pytest.mark.parametrize("holder,target", [(0, 2), (3, 0), (4, 1)])
def test_s31_weihai_transfer_goes_two_seats_on_and_shows_the_guard_at_once(holder, target):
    hands = [["9H"], ["QH"], ["8H"], ["7H"], ["TS"]]
    hands[holder] = ["BJ*", "SJ*", "AH"]
    state = deal("weihai", hands)
    state = act(state, holder, TRANSFER)
    assert state.phase == "emperor_selection"
    assert engine.to_act(state) == (target,)
    assert pview(state)["candidate"] == target
    assert "BJ*" in hand(state, target) and "BJ*" not in hand(state, holder)
    assert "SJ*" in hand(state, holder)
    # the transfer itself is public; until the new candidate answers (he may still go solo) the
    # public roles may stay unset, but never show anything else
    assert pview(state)["roles"][holder] in ("guard", None)
    assert legal_types(state, target) == {"accept", "solo"}, "no second transfer"
    state = act(state, target, ACCEPT)
    assert pview(state)["emperor"] == target
    assert pview(state)["roles"][holder] == "guard", "a transfer is public: the guard is shown at once"
    for s in range(5):
        assert sview(state, s)["roles"][holder] == "guard"
    assert pview(state)["roles"][target] == "emperor"


def test_s31_weihai_transfer_then_the_guard_may_still_declare_mingbao_which_doubles():
    from .helpers import REVEAL, answer_window
    state = deal("weihai", ["BJ* SJ* AH", "QH", "9H 8H", "7H TH", "7S JS"])
    state = act(act(state, 0, TRANSFER), 2, ACCEPT)
    state = answer_window(state, expect="solo_window")
    assert state.phase == "declaration_window"
    assert "reveal" in legal_types(state, 0)
    state = answer_window(state, {0: REVEAL})
    assert pview(state)["multiplier"] == 2


# ---------------------------------------------------------------- §3.2 lianzhong_simple

LZ = ["BJ* 2H KH", "2S QH", "SJ* 9H", "AH 8H", "2D 2C 7H"]


def test_s32_holder_may_accept_decline_or_solo_with_qiangdu():
    state = deal("lianzhong_simple", LZ)
    assert legal_types(state, 0) == {"accept", "decline", "solo"}


def test_s32_without_qiangdu_no_solo_without_the_guard_card():
    state = deal(engine.preset("lianzhong_simple", qiangdu=False), LZ)
    assert legal_types(state, 0) == {"accept", "decline"}
    hands = ["BJ* SJ* KH", "2S QH", "9H", "AH 8H", "2D 2C 7H"]
    state = deal(engine.preset("lianzhong_simple", qiangdu=False), hands)
    assert legal_types(state, 0) == {"accept", "decline", "solo"}


def test_s32_first_decline_is_free_and_goes_to_the_shangjia():
    state = decline(deal("lianzhong_simple", LZ), 0)
    assert engine.to_act(state) == (4,)
    assert pview(state)["candidate"] == 4
    assert pview(state)["pile"] == 1
    assert Counter(hand(state, 0)) == Counter(["2H", "KH"]), "only BJ* travels on the first decline"


def test_s32_second_decline_attaches_a_2_and_third_the_highest_non_joker():
    state = decline(deal("lianzhong_simple", LZ), 0)
    state = decline(state, 4)
    assert pview(state)["pile"] == 2
    assert Counter(hand(state, 4)) in (Counter(["2C", "7H"]), Counter(["2D", "7H"]))
    state = decline(state, 3)  # no 2: attaches AH, his highest non-joker
    assert hand(state, 3) == ["8H"]
    assert pview(state)["pile"] == 3
    # seat 2 holds SJ* 9H: no 2; his highest non-joker is 9H (the joker stays)
    state = act(state, 2, ACCEPT)
    assert pview(state)["emperor"] == 2
    got = Counter(hand(state, 2))
    assert got["BJ*"] == 1 and got["AH"] == 1 and got["SJ*"] == 1 and got["9H"] == 1
    assert sum(1 for c in got.elements() if c[0] == "2") == 1
    assert pview(state)["pile"] == 0


def test_s32_the_original_holders_second_decline_attaches_a_2():
    hands = ["BJ* 2H KH", "2S QH", "2C 9H", "2D 8H", "2D 7H"]
    state = deal("lianzhong_simple", hands)
    for seat in (0, 4, 3, 2, 1):
        state = decline(state, seat)
    assert engine.to_act(state) == (0,)
    state = decline(state, 0)
    assert hand(state, 0) == ["KH"], "the holder's second decline attaches his 2"
    assert pview(state)["pile"] == 6


def test_s32_two_full_circles_without_an_emperor_void_the_deal():
    hands = ["BJ* 2H 2H KH", "2S 2S QH", "2C 2C 9H", "2D 2D 8H", "SJ* 2D 7H 7S"]
    state = deal("lianzhong_simple", hands, start_seat=3)
    seat = 0
    for _ in range(9):
        state = decline(state, seat)
        assert state.phase == "emperor_selection"
        seat = (seat - 1) % 5
    state = decline(state, seat)
    assert state.phase == "void"
    final = engine.final_view(state)
    assert final["void"] is True
    assert final["scores"] == [0] * 5
    assert final["next_start_seat"] == 3, "after a void deal, the same start seat (§2.1)"
    assert engine.to_act(state) == ()


def test_s32_candidate_with_both_accept_is_hidden_solo_and_solo_is_open():
    hands = ["BJ* SJ* KH", "2S QH", "9H", "AH 8H", "2D 2C 7H"]
    state = act(deal("lianzhong_simple", hands), 0, ACCEPT)
    assert sview(state, 0)["roles"][0] == "soloist"
    assert pview(state)["roles"][0] == "emperor"
    state = act(deal("lianzhong_simple", hands), 0, SOLO)
    assert pview(state)["roles"][0] == "soloist"
    assert state.phase == "play", "an open solo: no 抢独, no declaration window, no kick in lianzhong"


def test_s32_qiangdu_solo_by_a_later_candidate_without_the_guard_card():
    state = decline(deal("lianzhong_simple", LZ), 0)
    assert "solo" in legal_types(state, 4)
    state = act(state, 4, SOLO)
    assert pview(state)["emperor"] == 4
    assert pview(state)["roles"][4] == "soloist"
    assert "BJ*" in hand(state, 4)
    assert state.phase == "play"
    assert pview(state)["turn"] == 4


# ---------------------------------------------------------------- §3.3 lianzhong_classic

LC = ["BJ* 9H 9H 9H KS", "9H QS", "8S 8H", "7S 7H", "TS TH"]


def test_s33_classic_accept_needs_a_callable_card_solo_is_open_to_anyone():
    state = deal("lianzhong_classic", LC)
    assert legal_types(state, 0) == {"accept", "decline", "solo"}
    state = deal("lianzhong_classic", ["BJ* 9H 9H KS", "9H QS", "8S 8H", "7S 7H", "TS TH"])
    assert legal_types(state, 0) == {"decline", "solo"}


def test_s33_classic_decline_passes_BJ_star_with_nothing_attached():
    hands = ["BJ* 2H 9H 9H", "2S QS", "2C 8H", "2D 7H", "2H TH"]
    state = decline(deal("lianzhong_classic", hands), 0)
    state = decline(state, 4)
    assert hand(state, 4) == ["2H", "TH"]
    assert pview(state)["pile"] == 1
    assert pview(state)["candidate"] == 3


def test_s33_classic_after_a_full_circle_each_receiver_must_accept():
    hands = ["BJ* 9H 9H 9H", "8S 8S 8S", "7C 7C 7C", "TD TD TD", "JH JH JH"]
    state = deal("lianzhong_classic", hands)
    for seat in (0, 4, 3, 2, 1):
        state = decline(state, seat)
    # back to seat 0 after one circle: he holds a callable triple, so he must accept (or solo)
    assert state.phase == "emperor_selection"
    assert engine.to_act(state) == (0,)
    assert "decline" not in legal_types(state, 0)
    assert "accept" in legal_types(state, 0)


def test_s33_classic_forced_receiver_without_a_triple_may_pass_it_on():
    hands = ["BJ* 9H 9H 9H", "8S 8S 8S", "7C 7C 7C", "TD TD TD", "JH JH 2S"]
    state = deal("lianzhong_classic", hands)
    for seat in (0, 4, 3, 2, 1):
        state = decline(state, seat)
    assert "decline" not in legal_types(state, 0)
    # second scenario: the receiver after a circle holds no callable triple
    hands = ["BJ* 9H 9H", "8S 8S 8S", "7C 7C 7C", "TD TD TD", "JH JH JH"]
    state = deal("lianzhong_classic", hands)
    state = decline(state, 0)
    for seat in (4, 3, 2, 1):
        state = decline(state, seat)
    assert state.phase == "emperor_selection"
    assert engine.to_act(state) == (0,)
    assert "decline" in legal_types(state, 0), "no callable triple: he may pass it on"


def test_s33_classic_receiver_with_four_identical_cards_may_decline_after_a_circle():
    hands = ["BJ* 9H 9H 9H 9H", "8S 8S 8S", "7C 7C 7C", "TD TD TD", "JH JH JH"]
    state = deal("lianzhong_classic", hands)
    for seat in (0, 4, 3, 2, 1):
        state = decline(state, seat)
    assert engine.to_act(state) == (0,)
    assert "decline" in legal_types(state, 0)


def test_s33_classic_two_circles_void():
    hands = ["BJ* 9H 9H", "8S 8S", "7C 7C", "TD TD", "JH JH"]
    state = deal("lianzhong_classic", hands)
    seat = 0
    for _ in range(10):
        assert state.phase == "emperor_selection"
        state = decline(state, seat)
        seat = (seat - 1) % 5
    assert state.phase == "void"


def test_s33_classic_call_makes_the_fourth_copy_holder_the_hidden_guard():
    state = act(deal("lianzhong_classic", LC), 0, ACCEPT)
    assert state.phase == "call"
    assert engine.to_act(state) == (0,)
    calls = [a for a in engine.legal_actions(state, 0) if a.type == "call"]
    assert [a.card for a in calls] == ["9H"]
    assert "solo" in legal_types(state, 0)
    state = act(state, 0, C("9H"))
    assert pview(state)["called_card"] == "9H"
    assert sview(state, 1)["roles"][1] == "guard"
    assert pview(state)["roles"][1] is None
    for s in (2, 3, 4):
        assert sview(state, s)["roles"][1] is None


def test_s33_classic_2s_are_callable():
    state = act(deal("lianzhong_classic", ["BJ* 2H 2H 2H KS", "2H QS", "8S 8H", "7S 7H", "TS TH"]), 0, ACCEPT)
    assert [a.card for a in engine.legal_actions(state, 0) if a.type == "call"] == ["2H"]


def test_s33_classic_solo_instead_of_calling_is_open():
    state = act(deal("lianzhong_classic", LC), 0, ACCEPT)
    state = act(state, 0, SOLO)
    assert pview(state)["roles"][0] == "soloist"


# ---------------------------------------------------------------- §3.4 wuren

def test_s34_wuren_candidate_without_a_triple_declines_automatically():
    hands = ["9H 9H 9H KS", "8S 8S 8S", "7C 7H 2S", "TD TD TD", "JH JH JH"]
    state = deal("wuren", hands, candidate=2)
    assert engine.to_act(state) == (1,), "seat 2 had no triple: the role went on to his 上家"
    assert pview(state)["candidate"] == 1
    assert hand(state, 2) == ["2S", "7H", "7C"] or Counter(hand(state, 2)) == Counter(["2S", "7H", "7C"]), \
        "the first decliner attaches nothing"


def test_s34_wuren_automatic_decliners_after_the_first_attach_a_2():
    hands = ["9H 9H 9H KS", "2S 8S 8D", "7C 7H 2S", "TD TD TD", "JH JH JH"]
    state = deal("wuren", hands, candidate=2)
    assert engine.to_act(state) == (0,)
    assert Counter(hand(state, 1)) == Counter(["8S", "8D"]), "seat 1 declined automatically with his 2"
    assert pview(state)["pile"] == 2
    state = act(state, 0, ACCEPT)
    assert Counter(hand(state, 0)) == Counter(["BJ*", "2S", "9H", "9H", "9H", "KS"])


def test_s34_wuren_2s_are_not_callable():
    state = deal("wuren", ["2H 2H 2H KS", "8S 8S 8S", "7C 7H", "TD TD TD", "JH JH JH"], candidate=0)
    assert pview(state)["candidate"] == 4


def test_s34_wuren_all_five_decline_then_the_first_chooses_once_more():
    hands = ["9H 9H 9H KS", "2S 8S", "7C 7H", "TD TS", "JH JS"]
    state = deal("wuren", hands, candidate=0)
    assert engine.to_act(state) == (0,)
    state = act(state, 0, DECLINE)
    # 4, 3, 2, 1 have no triple and decline automatically; back to 0, who chooses once more
    assert state.phase == "emperor_selection"
    assert engine.to_act(state) == (0,)
    assert "accept" in legal_types(state, 0)
    voided = act(state, 0, one_legal(state, 0, "decline"))
    assert voided.phase == "void"
    accepted = act(state, 0, ACCEPT)
    assert accepted.phase == "call"
    assert "BJ*" in hand(accepted, 0) and "2S" in hand(accepted, 0)


def test_s34_wuren_nobody_with_a_triple_voids_the_deal():
    state = deal("wuren", ["9H 9H KS", "8S 8S", "7C 7H", "TD TS", "JH JS"], candidate=3)
    assert state.phase == "void"


def test_s34_wuren_call_three_is_a_hidden_guard_four_is_a_hidden_solo_show_four_is_open():
    base = ["9H 9H 9H KS", "9H QS", "8S 8H", "7S 7H", "TS TH"]
    state = act(deal("wuren", base, candidate=0), 0, ACCEPT)
    assert state.phase == "call"
    assert [a.card for a in engine.legal_actions(state, 0) if a.type == "call"] == ["9H"]
    assert not [a for a in engine.legal_actions(state, 0) if a.type == "solo"]
    state = act(state, 0, C("9H"))
    assert state.phase == "play", "wuren has no windows"
    assert sview(state, 1)["roles"][1] == "guard"
    assert pview(state)["roles"][1] is None

    four = ["9H 9H 9H 9H KS", "QH QS", "8S 8H", "7S 7H", "TS TH"]
    state = act(deal("wuren", four, candidate=0), 0, ACCEPT)
    assert Action("solo", card="9H") in engine.legal_actions(state, 0)
    hidden = act(state, 0, C("9H"))
    assert sview(hidden, 0)["roles"][0] == "soloist"
    assert pview(hidden)["roles"][0] == "emperor"
    assert pview(hidden)["multiplier"] == 1
    shown = act(state, 0, Action("solo", card="9H"))
    assert pview(shown)["roles"][0] == "soloist"
    assert pview(shown)["multiplier"] == 2


# ---------------------------------------------------------------- §3.5 campus

def test_s35_campus_buying_a_3_pays_with_a_2():
    hands = ["BJ* 9H 9H 9H 2S", "3S 3H 9S", "3C 9C", "3D 9D", "3S 9S"]
    state = deal("campus", hands)
    # seat 0 has no 3: the nearest seat after him holding two or more (seat 1) sells one for a 2
    assert sum(1 for c in hand(state, 0) if c[0] == "3") == 1
    assert "2S" not in hand(state, 0)
    assert "2S" in hand(state, 1)
    assert sum(1 for c in hand(state, 1) if c[0] == "3") == 1


@pytest.mark.parametrize("extra,paid", [("SJ BJ", "SJ"), ("BJ", "BJ"), ("", None)],
                         ids=["SJ_before_BJ", "BJ_if_no_SJ", "nothing"])
def test_s35_campus_buying_a_3_without_a_2(extra, paid):
    hands = [f"BJ* 9H 9H 9H {extra}".split(), "3S 3H 9S".split(), "3C 9C".split(), "3D 9D".split(),
             "3S 9S".split()]
    state = deal("campus", hands)
    assert sum(1 for c in hand(state, 0) if c[0] == "3") == 1
    assert "BJ*" in hand(state, 0), "BJ* is never a payment"
    if paid:
        assert paid in hand(state, 1)
        assert len(hand(state, 1)) == 3
    else:
        assert len(hand(state, 1)) == 2


def test_s35_campus_seller_is_the_nearest_after_the_buyer_with_two():
    hands = ["BJ* 9H 9H 9H 2S", "3H 9S", "3C 9C", "3D 3S 9D", "3S 9S"]
    state = deal("campus", hands)
    assert "2S" in hand(state, 3)
    assert sum(1 for c in hand(state, 3) if c[0] == "3") == 1


def test_s35_campus_decline_goes_to_the_xiajia_and_later_decliners_attach_a_2():
    hands = ["BJ* 9H 9H 9H 3S 2H", "3H 9S 2S", "3C 9C 2C", "3D 9D", "3S 9S"]
    state = deal("campus", hands)
    assert legal_types(state, 0) >= {"accept", "decline"}
    state = decline(state, 0)
    assert pview(state)["candidate"] == 1 or state.phase != "emperor_selection"
    assert "2H" in hand(state, 0), "the first decline attaches nothing"


def test_s35_campus_candidate_without_a_qualifying_card_must_decline():
    # seat 4 holds no 9, so 9H is not callable (其他几个人必须有)
    hands = ["BJ* 9H 9H 9H 3S 2H", "3H 9S 2S", "3C 9C 2C", "3D 9D", "3S 8S"]
    state = deal("campus", hands)
    assert "accept" not in legal_types(state, 0)


def test_s35_campus_must_decline_without_a_2_voids():
    # 0 must decline (free), 1 has no callable card and no 2 to attach: the deal is void
    hands = ["BJ* 9H 9H 3S", "3H 9S", "3C 9C", "3D 9D", "3S 8S"]
    state = deal("campus", hands)
    if state.phase == "emperor_selection":
        state = act(state, 0, one_legal(state, 0, "decline"))
    assert state.phase == "void"


# ---------------------------------------------------------------- §3.6 laowang

LW = ["SJ* 2H KS", "2S QS", "AH 8H", "7S 7H", "2D TS"]


def test_s36_laowang_accept_takes_the_bottom_BJ():
    state = deal("laowang", LW, candidate=2)
    assert engine.to_act(state) == (2,)
    before = len(hand(state, 2))
    state = act(state, 2, ACCEPT)
    assert Counter(hand(state, 2))["BJ"] == 1
    assert len(hand(state, 2)) == before + 1
    assert state.phase == "play", "laowang has no declarations"
    assert pview(state)["turn"] == 2
    assert sview(state, 0)["roles"][0] == "guard", "the holder of 老王 SJ* is the guard"
    assert pview(state)["roles"][0] is None


def test_s36_laowang_decline_to_shangjia_later_decliners_add_a_2_no_2_must_accept():
    state = deal("laowang", LW, candidate=0)
    state = decline(state, 0)
    assert "2H" in hand(state, 0), "the first decline is free"
    assert pview(state)["candidate"] == 4
    state = decline(state, 4)
    assert hand(state, 4) == ["TS"]
    # seat 3 has no 2: he must accept (taking the bottom BJ and the attached 2)
    if state.phase == "emperor_selection":
        assert legal_types(state, 3) == {"accept"}
        state = act(state, 3, ACCEPT)
    assert pview(state)["emperor"] == 3
    assert Counter(hand(state, 3)) == Counter(["BJ", "2D", "7S", "7H"])


def test_s36_laowang_emperor_holding_SJ_star_plays_a_hidden_solo():
    state = act(deal("laowang", LW, candidate=0), 0, ACCEPT)
    assert sview(state, 0)["roles"][0] == "soloist"
    assert pview(state)["roles"][0] == "emperor"


# ---------------------------------------------------------------- §3.7 pagat

PG = ["BJ* AH", "QH", "SJ* 9H", "TH 8H", "7H 7S"]


def test_s37_pagat_pass_goes_to_the_xiajia_for_free():
    state = deal("pagat", PG)
    assert legal_types(state, 0) == {"accept", "decline"}
    state = decline(state, 0)
    assert pview(state)["candidate"] == 1
    assert pview(state)["pile"] in (0, 1)
    state = decline(state, 1)
    assert hand(state, 1) == ["QH"]
    # seat 2 holds SJ*: accept = hidden solo, solo = declared solo
    assert legal_types(state, 2) == {"accept", "decline", "solo"}


def test_s37_pagat_after_a_full_circle_the_holder_must_accept():
    state = deal("pagat", PG)
    for seat in (0, 1, 2, 3, 4):
        state = decline(state, seat)
    # seat 0 must accept; without SJ* that is his only answer
    if state.phase == "emperor_selection":
        assert legal_types(state, 0) == {"accept"}
        state = act(state, 0, ACCEPT)
    assert pview(state)["emperor"] == 0
    assert "BJ*" in hand(state, 0)


def test_s37_pagat_a_forced_holder_of_both_may_still_solo():
    hands = ["BJ* SJ* AH", "QH", "9H", "TH 8H", "7H 7S"]
    state = deal("pagat", hands)
    for seat in (0, 1, 2, 3, 4):
        state = decline(state, seat)
    assert engine.to_act(state) == (0,)
    assert legal_types(state, 0) == {"accept", "solo"}


def test_s22_attached_cards_are_private_to_giver_and_receiver():
    """docs/engine.md: 贴2 cards are visible to giver and receiver only; the decline itself is public."""
    state = decline(deal("lianzhong_simple", LZ), 0)
    state, events = engine.apply_action(state, 4, one_legal(state, 4, "decline"))
    assert any(e["type"] == "decline" and "private_to" not in e for e in events)
    carded = [e for e in events if "cards" in e or "card" in e]
    assert carded, events
    for event in carded:
        assert set(event["private_to"]) <= {4, 3}
    public = [e for e in events if "private_to" not in e]
    assert not any(c[0] == "2" for e in public for c in e.get("cards", []))
