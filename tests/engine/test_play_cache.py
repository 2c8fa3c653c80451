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
