"""docs/rules.md §2.5 declaration windows: solo window (明独 / 抢独), declaration window (明保 / 造反),
kick window (踢, weihai), per preset (§3.1, §3.2, §3.3, §3.5, §3.7); events of docs/engine.md."""

from __future__ import annotations

import pytest

from games import engine

from .helpers import (
    ACCEPT,
    KICK,
    REBEL,
    REVEAL,
    SOLO,
    STAY,
    C,
    act,
    answer_window,
    deal,
    hand,
    legal_types,
    pview,
    sview,
)

W = ["BJ* AH KH", "SJ* QH", "9H 8H", "7H TH", "7S JS"]


def weihai_accepted(hands=W, emperor=0):
    return act(deal("weihai", hands), emperor, ACCEPT)


# ---------------------------------------------------------------- the solo window

def test_s25_weihai_solo_window_asks_the_four_others_at_once():
    state = weihai_accepted()
    assert state.phase == "solo_window"
    assert pview(state)["window"]["kind"] == "solo"
    assert sorted(pview(state)["window"]["asked"]) == [1, 2, 3, 4]
    assert sorted(engine.to_act(state)) == [1, 2, 3, 4]
    for s in (1, 2, 3, 4):
        assert legal_types(state, s) == {"solo", "stay"}
    assert engine.legal_actions(state, 0) == []


def test_s25_answers_in_any_order_window_closes_when_all_answered():
    state = weihai_accepted()
    for seat in (3, 1, 4):
        state = act(state, seat, STAY)
        assert state.phase == "solo_window"
        assert seat not in engine.to_act(state)
    state = act(state, 2, STAY)
    assert state.phase == "declaration_window"


def test_s25_a_solo_claim_makes_the_claimant_the_soloist_who_leads():
    state = weihai_accepted()
    state = answer_window(state, {3: SOLO})
    view = pview(state)
    assert view["emperor"] == 3
    assert view["roles"][3] == "soloist"
    assert all(view["roles"][s] == "commoner" for s in (0, 1, 2, 4))
    # weihai: after an open solo the opponents (including the BJ* holder) are asked to kick
    assert state.phase == "kick_window"
    assert sorted(view["window"]["asked"]) == [0, 1, 2, 4]
    state = answer_window(state)
    assert state.phase == "play"
    assert pview(state)["turn"] == 3


def test_s25_after_a_solo_claim_the_marked_cards_are_plain_jokers():
    hands = ["BJ* AH", "SJ* QH", "9H 8H", "BJ 7H", "7S JS"]
    state = answer_window(weihai_accepted(hands), {3: SOLO})
    state = answer_window(state)
    state = act(state, 3, engine.Action("play", ("7H",)))
    # 1 plays SJ*: nothing special, and it does not make 1 a guard
    state = act(state, 4, engine.Action("pass"))
    state = act(state, 0, engine.Action("pass"))
    state = act(state, 1, engine.Action("play", ("SJ*",)))
    assert pview(state)["roles"][1] == "commoner"
    assert pview(state)["multiplier"] == 1


@pytest.mark.parametrize("emperor,claims,winner", [
    (0, {1: SOLO, 3: SOLO}, 3),
    (0, {4: SOLO, 2: SOLO}, 4),
    (0, {1: SOLO, 2: SOLO, 3: SOLO, 4: SOLO}, 4),
    (2, {3: SOLO, 0: SOLO}, 0),
    (2, {1: SOLO, 4: SOLO}, 1),
    (2, {3: SOLO}, 3),
], ids=["e0_1v3", "e0_4v2", "e0_all", "e2_3v0", "e2_1v4", "e2_only_3"])
@pytest.mark.parametrize("preset", ["lianzhong_simple", "weihai", "lianzhong_classic"])
def test_s25_several_solo_claims_nearest_counting_backwards_wins(preset, emperor, claims, winner):
    hands = [["9H"], ["QH"], ["8H"], ["7H"], ["TS"]]
    hands[emperor] = ["BJ*", "AH"]
    if preset == "lianzhong_classic":
        hands[emperor] += ["KH", "KH", "KH"]
        hands[(emperor + 1) % 5].append("KH")
        state = act(act(deal(preset, hands), emperor, ACCEPT), emperor, C("KH"))
    else:
        hands[(emperor + 1) % 5].append("SJ*")
        state = act(deal(preset, hands), emperor, ACCEPT)
    assert state.phase == "solo_window"
    state = answer_window(state, claims)
    assert pview(state)["emperor"] == winner
    assert pview(state)["roles"][winner] == "soloist"


def test_s25_a_hidden_solo_does_not_suppress_the_solo_window_and_a_claim_takes_over():
    hands = ["BJ* SJ* AH", "QH", "9H 8H", "7H TH", "7S JS"]
    state = act(deal("lianzhong_simple", hands), 0, ACCEPT)
    assert state.phase == "solo_window"
    state = answer_window(state, {2: SOLO})
    assert pview(state)["emperor"] == 2
    assert sview(state, 0)["roles"][0] == "commoner", "a former hidden soloist is an ordinary opponent"
    assert state.phase == "play"
    assert pview(state)["turn"] == 2


def test_s25_an_open_solo_suppresses_the_solo_and_declaration_windows():
    hands = ["BJ* SJ* AH", "QH", "9H 8H", "7H TH", "7S JS"]
    state = act(deal("lianzhong_simple", hands), 0, SOLO)
    assert state.phase == "play"
    state = act(deal("weihai", hands), 0, SOLO)
    assert state.phase == "kick_window"


def test_s32_no_solo_window_without_qiangdu():
    state = act(deal(engine.preset("lianzhong_simple", qiangdu=False), W), 0, ACCEPT)
    assert state.phase == "declaration_window"


@pytest.mark.parametrize("preset", ["pagat", "lianzhong_classic", "campus"])
def test_s25_presets_without_a_solo_window(preset):
    if preset == "pagat":
        state = act(deal("pagat", W), 0, ACCEPT)
        assert state.phase == "declaration_window"
    elif preset == "campus":
        hands = ["BJ* 9H 9H 9H KS", "9H QS", "9S 8H", "9C 7H", "9D TH"]
        state = act(act(deal("campus", hands), 0, ACCEPT), 0, C("9H"))
        assert state.phase == "declaration_window"
    else:
        hands = ["BJ* 9H 9H 9H KS", "9H QS", "8S 8H", "7S 7H", "TS TH"]
        state = act(act(deal("lianzhong_classic", hands), 0, ACCEPT), 0, C("9H"))
        assert state.phase == "solo_window", "classic has 抢独 (qiangdu on by default)"


# ---------------------------------------------------------------- the declaration window

def test_s25_declaration_window_guard_may_reveal_commoners_may_rebel():
    state = answer_window(weihai_accepted())
    assert state.phase == "declaration_window"
    assert sorted(pview(state)["window"]["asked"]) == [1, 2, 3, 4]
    assert legal_types(state, 1) == {"reveal", "stay"}
    for s in (2, 3, 4):
        assert legal_types(state, s) == {"rebel", "stay"}


def test_s25_in_a_hidden_solo_all_four_are_commoners():
    hands = ["BJ* SJ* AH", "QH", "9H 8H", "7H TH", "7S JS"]
    state = answer_window(act(deal("weihai", hands), 0, ACCEPT))
    for s in (1, 2, 3, 4):
        assert legal_types(state, s) == {"rebel", "stay"}


def test_s25_window_closed_event_makes_declarations_public_with_seats():
    state = answer_window(weihai_accepted())
    state, events = engine.apply_action(state, 2, REBEL)
    assert all(e.get("private_to") == [2] for e in events)
    for seat in (1, 3):
        state, events = engine.apply_action(state, seat, STAY)
    state, events = engine.apply_action(state, 4, STAY)
    closed = [e for e in events if e["type"] == "window_closed"]
    assert len(closed) == 1 and "private_to" not in closed[0]
    assert "2" in str(closed[0]) and "rebel" in str(closed[0])
    # a failed rebel stays public (004 造反失败 still shown)
    declared = pview(state)["declarations"]
    assert {"seat": 2, "type": "rebel"} in declared or [2, "rebel"] in declared


def test_s31_weihai_one_rebel_does_not_double_and_opens_no_kick():
    state = answer_window(answer_window(weihai_accepted()), {3: REBEL})
    assert state.phase == "play"
    assert pview(state)["multiplier"] == 1
    assert pview(state)["roles"][1] is None, "a failed rebellion reveals nobody"


def test_s31_weihai_two_rebels_succeed_double_and_reveal_the_guard():
    state = answer_window(answer_window(weihai_accepted()), {3: REBEL, 4: REBEL})
    assert pview(state)["multiplier"] == 2
    assert pview(state)["roles"][1] == "guard"
    assert state.phase == "kick_window"
    assert sorted(pview(state)["window"]["asked"]) == [0, 1], "the emperor side is asked after a rebellion"
    for s in (0, 1):
        assert legal_types(state, s) == {"kick", "stay"}


def test_s31_weihai_mingbao_reveals_and_asks_the_commoners_to_kick():
    state = answer_window(answer_window(weihai_accepted()), {1: REVEAL})
    assert pview(state)["roles"][1] == "guard"
    assert pview(state)["multiplier"] == 2
    assert state.phase == "kick_window"
    assert sorted(pview(state)["window"]["asked"]) == [2, 3, 4]


def test_s31_weihai_mingbao_and_rebellion_ask_both_sides():
    state = answer_window(answer_window(weihai_accepted()), {1: REVEAL, 2: REBEL, 4: REBEL})
    assert pview(state)["multiplier"] == 2
    assert sorted(pview(state)["window"]["asked"]) == [0, 1, 2, 3, 4]


def test_s31_weihai_hidden_solo_rebellion_reveals_the_soloist_who_is_asked_to_kick():
    hands = ["BJ* SJ* AH", "QH", "9H 8H", "7H TH", "7S JS"]
    state = answer_window(act(deal("weihai", hands), 0, ACCEPT))
    state = answer_window(state, {1: REBEL, 2: REBEL})
    assert pview(state)["roles"][0] == "soloist"
    assert pview(state)["multiplier"] == 2
    assert state.phase == "kick_window"
    assert pview(state)["window"]["asked"] == [0]


def test_s31_weihai_transfer_guard_declares_in_the_window():
    hands = ["BJ* SJ* AH", "QH", "9H 8H", "7H TH", "7S JS"]
    state = act(act(deal("weihai", hands), 0, engine.Action("transfer")), 2, ACCEPT)
    state = answer_window(state, expect="solo_window")
    assert legal_types(state, 0) == {"reveal", "stay"}
    state = answer_window(state, {0: STAY})
    assert pview(state)["multiplier"] == 1
    assert state.phase == "play"


def test_s32_lianzhong_two_rebels_force_the_guard_out_double_no_kick():
    state = act(deal("lianzhong_simple", W), 0, ACCEPT)
    state = answer_window(state, expect="solo_window")
    state = answer_window(state, {2: REBEL, 3: REBEL}, expect="declaration_window")
    assert pview(state)["roles"][1] == "guard"
    assert pview(state)["multiplier"] == 2
    assert state.phase == "play", "no kick in lianzhong"


def test_s32_lianzhong_one_rebel_no_double():
    state = act(deal("lianzhong_simple", W), 0, ACCEPT)
    state = answer_window(answer_window(state), {2: REBEL})
    assert pview(state)["multiplier"] == 1
    assert pview(state)["roles"][1] is None


def test_s32_lianzhong_hidden_solo_forced_into_the_open_by_two_rebels():
    hands = ["BJ* SJ* AH", "QH", "9H 8H", "7H TH", "7S JS"]
    state = act(deal("lianzhong_simple", hands), 0, ACCEPT)
    state = answer_window(answer_window(state), {3: REBEL, 4: REBEL})
    assert pview(state)["roles"][0] == "soloist"
    assert pview(state)["multiplier"] == 2


def test_s33_classic_commoners_may_only_stay():
    hands = ["BJ* 9H 9H 9H KS", "9H QS", "8S 8H", "7S 7H", "TS TH"]
    state = act(act(deal("lianzhong_classic", hands), 0, ACCEPT), 0, C("9H"))
    state = answer_window(state, expect="solo_window")
    assert state.phase == "declaration_window"
    assert legal_types(state, 1) == {"reveal", "stay"}
    for s in (2, 3, 4):
        assert legal_types(state, s) == {"stay"}
    state = answer_window(state, {1: REVEAL})
    assert pview(state)["roles"][1] == "guard"
    assert pview(state)["multiplier"] == 2


def test_s35_campus_guard_reveal_doubles_commoners_only_stay():
    hands = ["BJ* 9H 9H 9H KS", "9H QS", "9S 8H", "9C 7H", "9D TH"]
    state = act(act(deal("campus", hands), 0, ACCEPT), 0, C("9H"))
    assert state.phase == "declaration_window"
    assert legal_types(state, 1) == {"reveal", "stay"}
    for s in (2, 3, 4):
        assert legal_types(state, s) == {"stay"}
    state = answer_window(state, {1: REVEAL})
    assert pview(state)["multiplier"] == 2
    assert pview(state)["roles"][1] == "guard"
    assert state.phase == "play"


@pytest.mark.parametrize("answers,multiplier,guard_public", [
    ({}, 1, False), ({2: REBEL}, 2, False), ({1: REVEAL}, 2, True), ({2: REBEL, 3: REBEL}, 2, False),
    ({1: REVEAL, 2: REBEL}, 2, True)])
def test_s37_pagat_one_window_any_declaration_doubles_once(answers, multiplier, guard_public):
    state = act(deal("pagat", W), 0, ACCEPT)
    assert state.phase == "declaration_window"
    state = answer_window(state, answers)
    assert state.phase == "play", "pagat: no solo window, no kick"
    assert pview(state)["multiplier"] == multiplier
    assert (pview(state)["roles"][1] == "guard") is guard_public


@pytest.mark.parametrize("preset,kwargs,hands", [
    ("wuren", {"candidate": 0}, ["9H 9H 9H KS", "9H QS", "8S 8H", "7S 7H", "TS TH"]),
])
def test_s34_wuren_has_no_windows(preset, kwargs, hands):
    state = act(act(deal(preset, hands, **kwargs), 0, ACCEPT), 0, C("9H"))
    assert state.phase == "play"


def test_s25_window_view_never_shows_who_answered():
    state = answer_window(weihai_accepted())
    before = pview(state)
    after = pview(act(state, 1, REVEAL))
    assert after == before
    assert set(before["window"]) >= {"kind", "asked"}
    assert before["window"]["asked"] == [1, 2, 3, 4]


def test_s25_roles_after_kicks_and_hand_unchanged_by_windows():
    state = answer_window(answer_window(weihai_accepted()), {1: REVEAL})
    state = answer_window(state, {2: KICK, 3: KICK})
    assert pview(state)["multiplier"] == 4
    assert hand(state, 0) == ["BJ*", "AH", "KH"]
