"""How good a hand is, in tricks: the lead it can win back against the sets it must get rid of.

A hand goes out by leading its sets one by one; a set that others beat costs a lead, a set nobody
beats keeps the lead. So a hand's `losers` is the expected number of its sets that lose the lead
(each one-rank set once, docs/rules.md §1 "A play"), and its `controls` the jokers that win a lead back.
The must-last rank (憋6 / 憋三) goes out with the last play, so it is no set of its own.
"""

from __future__ import annotations

from ..cards import BJ_VALUE, SJ_VALUE, SUPER_VALUE
from .odds import beaten_chance
from .reading import Reading

# What a joker is worth in won-back leads: a big joker always wins, a small one mostly,
# a marked card above BJ (老王, 特王) is never beaten.
JOKER_CONTROL = {SJ_VALUE: 0.6, BJ_VALUE: 1.0, SUPER_VALUE: 1.2}


def set_loses(reading: Reading, value: int, size: int) -> float:
    """Chance that leading this whole set loses the lead to a seat not on my side."""
    seats = reading.holding - reading.partners
    return beaten_chance(reading, (value,) * size, seats)


def losers(reading: Reading) -> float:
    return sum(set_loses(reading, value, size) for value, size in reading.naturals.items()
               if value != reading.must_last)


def controls(reading: Reading) -> float:
    return sum(JOKER_CONTROL[v] for v in reading.jokers)


def strength(reading: Reading) -> float:
    """Controls minus losers: above zero, the hand can hope to lead out every set it has."""
    return controls(reading) - losers(reading)
