"""docs/engine.md `hands` given with the marked card; docs/rules.md §3.4: wuren's `BJ*` is the set-aside card
that goes to the candidate and travels with every decline. Where a given hand already holds it,
that copy travels exactly as a dealt one would."""

from __future__ import annotations

from collections import Counter

from games import engine

from .helpers import ACCEPT, act, deal, hand, legal_types, pview, sview

DECLINE = engine.Action("decline")


def test_s34_wuren_given_BJ_star_goes_with_the_role_when_its_holder_declines_automatically():
    """Seat 0 holds BJ* and has no triple: he declines at once and BJ* travels to his 上家 (seat 4)."""
    state = deal("wuren", ["BJ* 9H 9H KS", "8S 8S", "7C 7H", "TD TS", "JH JH JH 5S"])
    assert pview(state)["candidate"] == 4
    assert "BJ*" not in hand(state, 0)
    assert sview(state, 4)["pile_cards"] == ["BJ*"]
    state = act(state, 4, ACCEPT)
    assert Counter(hand(state, 4)) == Counter(["BJ*", "JH", "JH", "JH", "5S"])
    assert Counter(hand(state, 0)) == Counter(["9H", "9H", "KS"])


def test_s34_wuren_given_BJ_star_goes_with_the_role_when_its_holder_chooses_to_decline():
    state = deal("wuren", ["BJ* 9H 9H 9H KS", "8S 8S", "7C 7H", "TD TS", "JH JH JH 5S"])
    assert engine.to_act(state) == (0,)
    assert sview(state, 0)["pile_cards"] == ["BJ*"], "his BJ* sits in the pile until he accepts"
    assert "decline" in legal_types(state, 0)
    state = act(state, 0, DECLINE)
    assert pview(state)["candidate"] == 4 and sview(state, 4)["pile_cards"] == ["BJ*"]
    state = act(state, 4, ACCEPT)
    assert "BJ*" in hand(state, 4) and "BJ*" not in hand(state, 0)


def test_s34_wuren_given_BJ_star_goes_to_the_fixed_candidate():
    """`candidate` fixes the random candidate (docs/engine.md); the given BJ* is his, as a dealt one."""
    state = deal("wuren", ["BJ* 9H 9H KS", "8S 8S", "JH JH JH 5S", "TD TS", "7C 7H"], candidate=2)
    assert pview(state)["candidate"] == 2
    state = act(state, 2, ACCEPT)
    assert "BJ*" in hand(state, 2) and "BJ*" not in hand(state, 0)


def test_s34_wuren_given_BJ_star_is_dealt_like_the_set_aside_one():
    """The same deal with BJ* in a hand or set aside plays out alike."""
    held = deal("wuren", ["BJ* 9H 9H KS", "8S 8S", "7C 7H", "TD TS", "JH JH JH 5S"], candidate=0)
    aside = deal("wuren", ["9H 9H KS", "8S 8S", "7C 7H", "TD TS", "JH JH JH 5S"], candidate=0)
    for seat in range(5):
        assert sview(held, seat) == sview(aside, seat)
