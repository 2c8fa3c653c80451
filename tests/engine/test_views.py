"""docs/client-guide.md §3 view shapes and docs/rules.md §1 Teams/Visibility: what each view holds, and how a
role
becomes public by playing the card (without doubling, without a window)."""

from __future__ import annotations

from collections import Counter

import pytest

from games import engine

from .helpers import ACCEPT, PASS, C, P, act, answer_window, deal, pview, run, stay_through_windows, sview
from .scripts import auto_play, called_guard_hands, start_called

SEAT_KEYS = {"preset", "phase", "seat", "hand", "counts", "roles", "emperor", "candidate", "called_card",
             "window",
             "table", "passed", "turn", "places", "multiplier", "declarations", "legal_actions", "pile"}
W = ["BJ* 7H AH", "SJ* 9S QH", "8H TH", "9H JH", "8S KS"]


def test_contract_seat_view_keys_and_shapes():
    state = deal("weihai", W)
    view = sview(state, 0)
    assert SEAT_KEYS <= set(view)
    assert view["seat"] == 0
    assert view["hand"] == ["BJ*", "AH", "7H"]
    assert view["counts"] == [3, 3, 2, 2, 2]
    assert len(view["roles"]) == 5 and len(view["places"]) == 5
    assert view["legal_actions"] and all(set(a) >= {"type", "cards", "card"} for a in view["legal_actions"])
    assert view["window"] is None and view["table"] is None
    assert view["multiplier"] == 1


def test_contract_public_view_is_the_seat_view_without_private_fields():
    state = stay_through_windows(act(deal("weihai", W), 0, ACCEPT))
    public = pview(state)
    assert not {"seat", "hand", "legal_actions"} & set(public)
    for seat in range(5):
        view = sview(state, seat)
        for key in public:
            if key != "roles":
                assert view[key] == public[key], key


def test_contract_final_view_keys():
    hands = ["BJ* AH", "SJ* QH", "8H TH", "9H JH", "8S KS"]
    state = stay_through_windows(act(deal("weihai", hands), 0, ACCEPT))
    state = run(state, [(0, "BJ*"), (1, "pass"), (2, "pass"), (3, "pass"), (4, "pass"), (0, "AH"),
                        (1, "SJ*"), (2, "pass"), (3, "pass"), (4, "pass"), (1, "QH")])
    assert state.phase == "over"
    final = engine.final_view(state)
    assert {"hands", "seed", "actions", "scores", "tribute", "next_start_seat", "void"} <= set(final)
    assert final["hands"][0] == ["BJ*", "AH"]
    assert final["void"] is False
    assert len(final["actions"]) == 1 + 8 + 11
    seat, action = final["actions"][0]
    assert seat == 0 and action["type"] == "accept"
    assert set(final["tribute"]) >= {"gives", "takes"}
    assert final["roles"][1] == "guard" and final["roles"][0] == "emperor"


def test_aborted_view_is_the_final_view_of_the_deal_as_it_stood_without_a_result():
    """docs/engine.md `aborted_view`: a deal ended from outside keeps its hands, roles and actions so
    far; nothing is scored or owed, and nobody is to act."""
    hands = ["BJ* AH", "SJ* QH", "8H TH", "9H JH", "8S KS"]
    state = stay_through_windows(act(deal("weihai", hands), 0, ACCEPT))
    state = run(state, [(0, "BJ*"), (1, "pass")])
    assert state.phase == "play" and engine.to_act(state)
    view = engine.aborted_view(state)
    assert set(engine.final_view(_played_out()).keys()) == set(view)
    assert view["hands"][0] == ["BJ*", "AH"] and view["counts"][0] == 1
    assert view["phase"] == "play" and view["to_act"] == [] and view["void"] is False
    assert view["scores"] == [0] * 5 and view["tribute"]["gives"] == [] and view["tribute"]["takes"] == []
    assert view["next_start_seat"] == state.start_seat
    assert view["actions"][-2:] == [[0, P("BJ*").to_dict()], [1, PASS.to_dict()]]
    assert view["roles"][1] == "guard"  # the truth, as in every final view
    with pytest.raises(ValueError):
        engine.aborted_view(_played_out())  # an ended deal's view is final_view


def _played_out():
    hands = ["BJ* AH", "SJ* QH", "8H TH", "9H JH", "8S KS"]
    state = stay_through_windows(act(deal("weihai", hands), 0, ACCEPT))
    return run(state, [(0, "BJ*"), (1, "pass"), (2, "pass"), (3, "pass"), (4, "pass"), (0, "AH"),
                       (1, "SJ*"), (2, "pass"), (3, "pass"), (4, "pass"), (1, "QH")])


def test_s36_laowang_exact_counts_from_10_down():
    hands = ["AH KH", "BJ QH", "SJ* 9H", "9C JH", "8S KS 8D 8C 7S 7H 7C 7D 9S 9D 9C"]
    state = deal("laowang", hands, candidate=0)
    assert pview(state)["counts"] == [2, 2, 2, 2, ">10"]
    # The same with one type (docs/client-guide.md §3): the hidden count is "at least 11".
    shown, hidden = {"at_least": 2, "exact": True}, {"at_least": 11, "exact": False}
    assert pview(state)["card_counts"] == [shown] * 4 + [hidden]
    assert sview(state, 4)["card_counts"][4] == {"at_least": 11, "exact": False}


def test_s1_guard_revealed_by_playing_SJ_star_no_double_no_window():
    state = stay_through_windows(act(deal("weihai", W), 0, ACCEPT))
    state = run(state, [(0, "7H"), (1, "SJ*")])
    view = pview(state)
    assert view["roles"][1] == "guard"
    assert view["multiplier"] == 1
    assert view["window"] is None and state.phase == "play"
    assert sview(state, 3)["roles"][1] == "guard"


def test_s1_hidden_soloist_revealed_by_playing_SJ_star_keeps_hidden_solo_scoring():
    hands = ["BJ* SJ* 7H", "QH", "8H TH", "9H JH", "8S KS"]
    state = stay_through_windows(act(deal("weihai", hands), 0, ACCEPT))
    assert pview(state)["roles"][0] == "emperor"
    state = run(state, [(0, "7H"), (1, "pass"), (2, "pass"), (3, "pass"), (4, "pass"), (0, "BJ* SJ*")])
    assert pview(state)["roles"][0] == "soloist"
    assert pview(state)["multiplier"] == 1
    assert state.phase == "over"
    assert engine.final_view(state)["scores"] == [16, -4, -4, -4, -4]


def test_s1_called_guard_revealed_by_playing_the_called_card():
    hands, prelude, _chain = called_guard_hands(0, 1, [0, 1, 2, 3, 4])
    state = start_called("lianzhong_classic", hands, 0, "8H")
    assert pview(state)["roles"][1] is None
    state = auto_play(state, prelude[:3], strict=False)  # 8H x3, 7S, then the guard's 8H
    assert pview(state)["roles"][1] == "guard"
    assert pview(state)["multiplier"] == 1


def test_s35_hidden_solo_becomes_public_once_all_four_called_cards_are_played():
    hands, prelude, _chain = called_guard_hands(0, None, [0, 1, 2, 3, 4], solo=True, bj=False)
    state = start_called("wuren", hands, 0, "8H", candidate=0)
    assert pview(state)["roles"][0] == "emperor"
    state = auto_play(state, prelude[:1], strict=False)
    assert pview(state)["roles"][0] == "soloist"
    assert pview(state)["multiplier"] == 1


def test_s35_campus_te_wang_loses_its_printed_rank():
    hands = ["BJ* 9H 9H 9H SJ 8S KD", "9H 9S QS", "9S 8H", "9C 7H", "9D TH"]
    state = act(act(deal("campus", hands), 0, ACCEPT), 0, C("9H"))
    state = answer_window(state)
    state = act(state, 0, P("SJ 8S"))
    plays = [Counter(a.cards) for a in engine.legal_actions(state, 1) if a.type == "play"]
    # as two 9s the pair would not beat SJ 8; as 特王 + 9 it does
    assert Counter(["9H", "9S"]) in plays
    state = act(state, 1, P("9H 9S"))
    assert pview(state)["table"]["seat"] == 1


def test_s36_laowang_guard_known_to_himself_only():
    hands = ["AH KH", "BJ QH", "SJ* 9H", "9C JH", "8S KS"]
    state = act(deal("laowang", hands, candidate=0), 0, ACCEPT)
    assert sview(state, 2)["roles"][2] == "guard"
    for seat in (0, 1, 3, 4):
        assert sview(state, seat)["roles"][2] is None
    state = run(state, [(0, "KH"), (1, "pass"), (2, "SJ*")])
    assert pview(state)["roles"][2] == "guard"


def test_contract_replay_from_scripted_hands_equals_live_state():
    rules = engine.preset("wuren")
    hands = ["9H 9H 9H KS", "9H QS", "8S 8H", "7S 7H", "TS TH"]
    setup = {"hands": [h.split() for h in hands], "candidate": 0}
    state = engine.new_deal(rules, **setup)
    actions = [(0, engine.Action("accept")), (0, engine.Action("call", card="9H")), (0, P("KS")), (1, PASS)]
    for seat, action in actions:
        state, _ = engine.apply_action(state, seat, action)
    assert engine.to_json(engine.replay(rules, setup, actions)) == engine.to_json(state)


def test_s31_transfer_target_solo_makes_the_transferrer_an_opponent():
    hands = ["BJ* SJ* AH", "QH", "9H 8H", "7H TH", "7S JS"]
    state = act(act(deal("weihai", hands), 0, engine.Action("transfer")), 2, engine.Action("solo"))
    assert pview(state)["roles"][2] == "soloist"
    assert pview(state)["roles"][0] == "commoner"


def test_contract_replay_of_a_scripted_deal_with_a_random_candidate():
    rules = engine.preset("wuren")
    setup = {"hands": [["9H", "9H", "9H", "KS"], ["8S", "8S", "8S", "QS"], ["7S", "7S", "7S"],
                       ["TS", "TS", "TS"],
                       ["JS", "JS", "JS"]]}
    state = engine.new_deal(rules, **setup)
    seat = engine.to_act(state)[0]
    actions = [(seat, engine.Action("accept"))]
    state, _ = engine.apply_action(state, seat, actions[0][1])
    for _ in range(5):  # the replay must pick the same random candidate every time
        assert engine.to_json(engine.replay(rules, setup, actions)) == engine.to_json(state)
