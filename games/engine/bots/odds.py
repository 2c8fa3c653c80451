"""How likely one of my plays is beaten (docs/rules.md §1 "Beating"), judged from what I can see.

A play of `c` cards of value `v` is beaten by `c` cards all higher: naturals of one higher rank, made
up with jokers. The cards I cannot see are spread over the other hands in proportion to their counts
(reading.py), so a seat's copies of a rank are binomial. A seat's must-last rank (憋6 / 憋三) cannot
answer, and a play holding a big joker is beaten only by a preset's special rules (§4).
"""

from __future__ import annotations

from functools import lru_cache
from math import comb

from ..cards import BJ_VALUE
from ..plays import JOKER_FLOOR
from .reading import Reading

_SHARE_STEPS = 400  # shares are rounded to 1/400 so the binomial tails can be cached
_SPECIAL_ANSWER = 0.05  # a big joker beaten by 烤牌, two-kill, 老王 or 特王


@lru_cache(maxsize=65536)
def _below(copies: int, share_step: int, k: int) -> float:
    """P(Binomial(copies, share) < k)."""
    if k <= 0:
        return 0.0
    if k > copies:
        return 1.0
    p = share_step / _SHARE_STEPS
    q = 1.0 - p
    return sum(comb(copies, i) * p ** i * q ** (copies - i) for i in range(k))


@lru_cache(maxsize=65536)
def _exactly(copies: int, share_step: int, k: int) -> float:
    p = share_step / _SHARE_STEPS
    return comb(copies, k) * p ** k * (1.0 - p) ** (copies - k) if k <= copies else 0.0


def _has_special_answers(reading: Reading) -> bool:
    rules = reading.rules
    return rules.roasting or rules.two_kill or rules.guard_card_super or rules.bombs


def seat_beats(reading: Reading, seat: int, value: int, size: int, jokers_needed: int = 0) -> float:
    """Chance that `seat` holds `size` cards all above `value` (naturals of one rank plus jokers),
    `jokers_needed` of them big jokers (to beat small jokers of my play)."""
    step = round(reading.unseen_share[seat] * _SHARE_STEPS)
    if step <= 0 or reading.counts[seat] < size:
        return 0.0
    jokers = reading.unseen_jokers
    big_jokers = jokers // 2
    if jokers_needed:
        big_needed = _below(big_jokers, step, jokers_needed)
        if big_needed >= 1.0:
            return 0.0
        holds_big = 1.0 - big_needed
        size -= jokers_needed
        jokers -= jokers_needed
        if size == 0:
            return holds_big
    else:
        holds_big = 1.0
    must_last = reading.must_last
    cannot = 0.0
    for spare in range(min(size - 1, 3) + 1):  # spare jokers attached to naturals
        chance = _exactly(jokers, step, spare)
        if chance < 1e-4:
            continue
        for rank, copies in reading.unseen_naturals.items():
            if rank > value and rank != must_last:
                chance *= _below(copies, step, size - spare)
        cannot += chance
    return holds_big * max(0.0, 1.0 - cannot)


def beaten_chance(reading: Reading, values: tuple[int, ...], seats) -> float:
    """Chance that at least one of `seats` beats my play `values` (high to low)."""
    top = values[0]
    if top >= BJ_VALUE:
        return _SPECIAL_ANSWER if top == BJ_VALUE and _has_special_answers(reading) else 0.0
    small_jokers = sum(1 for v in values if v >= JOKER_FLOOR)
    naturals = [v for v in values if v < JOKER_FLOOR]
    # the lowest natural: with laowang's attached 2s this underrates the play a little
    value = naturals[-1] if naturals else JOKER_FLOOR
    stands = 1.0
    for seat in seats:
        stands *= 1.0 - seat_beats(reading, seat, value, len(values), small_jokers)
    return 1.0 - stands
