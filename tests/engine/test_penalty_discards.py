"""docs/rules.md §3.6 laowang 串牌: "before the next deal the offender discards a 2 (else his next-highest
non-joker) out of play". The engine takes the offenders as `new_deal(..., discards=[seat, ...])`."""

import random
from collections import Counter

import pytest

from games import engine
from tests.engine.helpers import PRESET_NAMES


def _laowang(**setup):
    return engine.new_deal(engine.preset("laowang"), **setup)


def _without_twos(seat: int, seed: int = 3) -> list[list[str]]:
    """A laowang deal of `seed` whose `seat` swapped every 2 for a low card of seat (seat + 1) % 5."""
    hands = [list(h) for h in _laowang(seed=seed).dealt]
    other = (seat + 1) % 5
    twos = [c for c in hands[seat] if c[0] == "2"]
    lows = [c for c in hands[other] if c[0] in "345"][: len(twos)]
    assert len(lows) == len(twos)
    for two, low in zip(twos, lows, strict=True):
        hands[seat].remove(two)
        hands[other].append(two)
        hands[other].remove(low)
        hands[seat].append(low)
    return hands


def test_rules_3_6_the_offender_discards_a_two_out_of_play():
    plain = _laowang(seed=3)
    state = _laowang(seed=3, discards=[2])
    [(seat, card)] = state.discards
    assert seat == 2 and card[0] == "2"
    assert Counter(state.hands[2]) + Counter([card]) == Counter(plain.hands[2])
    for other in (0, 1, 3, 4):
        assert state.hands[other] == plain.hands[other]


def test_rules_3_6_without_a_two_his_highest_non_joker_goes():
    hands = _without_twos(1)
    state = _laowang(hands=hands, discards=[1])
    [(seat, card)] = state.discards
    held = [c for c in hands[1] if c not in ("SJ", "BJ", "SJ*", "BJ*")]
    assert seat == 1 and card[0] == max(held, key=lambda c: "3456789TJQKA2".index(c[0]))[0] == "A"


def test_rules_3_6_never_a_joker_and_one_card_per_penalty():
    # Two penalties on one seat take his two highest non-jokers; the SJ* (guard card) is never taken.
    plain = _laowang(seed=5)
    state = _laowang(seed=5, discards=[0, 0])
    order = "3456789TJQKA2"
    non_jokers = sorted((c for c in plain.hands[0] if c[0] in order), key=lambda c: -order.index(c[0]))
    assert [seat for seat, _ in state.discards] == [0, 0]
    assert sorted(c[0] for _, c in state.discards) == sorted(c[0] for c in non_jokers[:2])
    assert len(state.hands[0]) == len(plain.hands[0]) - 2
    assert [c for c in plain.hands[0] if c in ("SJ", "BJ", "SJ*", "BJ*")] == [
        c for c in state.hands[0] if c in ("SJ", "BJ", "SJ*", "BJ*")
    ]


def test_the_table_learns_that_a_seat_discarded_and_only_he_learns_which_card():
    state = _laowang(seed=9, discards=[4])
    [(_, card)] = state.discards
    public = [e for e in state.opening_events if e["type"] == "penalty_discard"]
    private = [e for e in state.opening_events if e["type"] == "penalty_discard_card"]
    assert public == [{"type": "penalty_discard", "seat": 4}]
    assert private == [{"type": "penalty_discard_card", "seat": 4, "card": card, "private_to": [4]}]
    for seat in range(5):
        view = engine.seat_view(state, seat)
        assert "discards" not in view
        assert view["counts"][4] == engine.seat_view(state, 4)["counts"][4]


def _play_out(state, rng):
    while state.phase not in ("over", "void"):
        seat = rng.choice(engine.to_act(state))
        state, _ = engine.apply_action(state, seat, rng.choice(engine.legal_actions(state, seat)))
    return state


def test_a_deal_with_discards_plays_to_its_end_and_replays_from_its_setup():
    setup = {"seed": 21, "discards": [3, 0]}
    rules = engine.preset("laowang")
    state = _play_out(engine.new_deal(rules, **setup), random.Random(4))
    final = engine.final_view(state)
    assert final["discards"] == [[seat, card] for seat, card in state.discards]
    assert [seat for seat, _ in final["discards"]] == [3, 0]
    # Every card of the deck is in a hand as dealt (after the discards), discarded, or the bottom BJ.
    dealt = Counter(c for hand in final["hands"] for c in hand) + Counter(c for _, c in final["discards"])
    assert sum((Counter(rules.deck) - dealt).values()) == 1
    replayed = engine.replay(rules, setup, [(seat, action) for seat, action in state.log])
    assert engine.final_view(replayed) == final
    assert engine.from_json(engine.to_json(state)).discards == state.discards


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_a_deal_without_penalties_has_none_in_its_final_view(name):
    state = _play_out(engine.new_deal(engine.preset(name), seed=2), random.Random(2))
    assert engine.final_view(state)["discards"] == []


@pytest.mark.parametrize("bad", [[5], [-1], ["1"], [True], "0", [0] * 11, {"seat": 1}])
def test_bad_discards_are_refused(bad):
    with pytest.raises(ValueError):
        _laowang(seed=1, discards=bad)


def test_a_state_stored_before_discards_existed_still_loads():
    data = engine.to_json(_laowang(seed=1))
    del data["discards"]
    assert engine.from_json(data).discards == ()
