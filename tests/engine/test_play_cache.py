"""The play listings reused from the previous hand (plays.HandPlays.after_play, via the lineage of a
played hand) equal listings built from scratch, in every preset (docs/rules.md §1 "A play", docs/engine.md
legal_actions)."""

import random

import pytest

from games import engine
from games.engine.plays import HandPlays
from games.engine.tricks import supers_for


def _fresh_listing(state, seat):
    hand = state.hands[seat]
    plays = HandPlays(state.rules, hand, state.specials, supers_for(state, seat))
    if state.table is None:
        return sorted(a.cards for a in plays.lead_actions())
    table = state.table
    return sorted(a.cards for a in plays.answers(state.rules, table.values, table.bomb))


@pytest.mark.parametrize("name", engine.PRESETS)
def test_s1_reused_listings_equal_fresh_ones_through_whole_deals(name):
    rules = engine.preset(name)
    rng = random.Random(name)
    compared = 0
    for seed in range(4):
        state = engine.new_deal(rules, seed=seed)
        while state.phase not in ("over", "void"):
            seat = rng.choice(engine.to_act(state))
            legal = engine.legal_actions(state, seat)
            if state.phase == "play":
                listed = sorted(a.cards for a in legal if a.type == "play")
                assert listed == _fresh_listing(state, seat), f"seed {seed}, seat {seat}"
                compared += 1
            state, _ = engine.apply_action(state, seat, rng.choice(legal))
    assert compared > 100


@pytest.mark.parametrize("name", engine.PRESETS)
def test_the_pass_check_never_hides_an_answer(name):
    """tricks._may_beat lets a follower pass without listing his plays: whenever it says no, a
    listing built from scratch has no answer either (docs/engine.md "Listing": every play
    apply_action accepts is listed)."""
    from games.engine.tricks import _may_beat

    rules = engine.preset(name)
    rng = random.Random(f"pass check {name}")
    said_no = 0
    for seed in range(6):
        state = engine.new_deal(rules, seed=100 + seed)
        while state.phase not in ("over", "void"):
            seat = rng.choice(engine.to_act(state))
            if state.phase == "play" and state.table is not None:
                supers = supers_for(state, seat)
                if not _may_beat(rules, state.hands[seat], supers, state.table):
                    said_no += 1
                    assert _fresh_listing(state, seat) == [], f"seed {seed}, seat {seat}"
            legal = engine.legal_actions(state, seat)
            state, _ = engine.apply_action(state, seat, rng.choice(legal))
    assert said_no > 50


@pytest.mark.parametrize("name", ["wuren", "campus"])
def test_analysed_hands_of_past_deals_are_let_go(name):
    """Each deal with a called card is a context of its own (plays.analysed_hands): only the last
    CONTEXTS_KEPT contexts keep their hands, however many deals are played."""
    from games.engine import plays

    rules = engine.preset(name)
    rng = random.Random(f"contexts {name}")
    for seed in range(12):
        state = engine.new_deal(rules, seed=300 + seed)
        while state.phase not in ("over", "void"):
            seat = rng.choice(engine.to_act(state))
            state, _ = engine.apply_action(state, seat, rng.choice(engine.legal_actions(state, seat)))
    by_specials = plays._HANDS[rules.key]
    assert len(by_specials) <= plays.CONTEXTS_KEPT
    assert all(len(by_supers) <= plays.CONTEXTS_KEPT for by_supers in by_specials.values())
    kept = [hands for by_supers in by_specials.values() for hands in by_supers.values()]
    assert all(len(hands) <= plays.HANDS_KEPT for hands in kept)
