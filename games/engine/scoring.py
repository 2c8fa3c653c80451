"""Settlement: each preset's scoring table, tribute owed, and the early end of a deal.

RULES §1 "End of a deal": a deal ends as soon as every score and every tribute count is fixed
whatever order the remaining players would finish in; the remaining players then take the
remaining places in seat order after the last player out. §3.x "Scoring" and "Tribute".
"""

from __future__ import annotations

from itertools import permutations

from .state import State, next_seat

_PLACE_POINTS = (4, 2, 0, -2, -4)  # weihai, wuren
_PAGAT_POINTS = (2, 1, 0, -1, -2)
_CAMPUS_CHIPS = (3, 2, 1, 0, -1)
# laowang: (emperor's place, guard's place) sorted -> (emperor takes, guard takes, each commoner gives)
_LAOWANG_PAIRS = {
    (1, 2): (4, 2, 2),
    (1, 3): (2, 1, 1), (1, 4): (2, 1, 1), (2, 3): (2, 1, 1),
    (1, 5): (0, 0, 0), (2, 4): (0, 0, 0),
    (2, 5): (-2, -1, -1), (3, 4): (-2, -1, -1), (3, 5): (-2, -1, -1),
    (4, 5): (-4, -2, -2),
}
_LAOWANG_SOLO = {1: 8, 2: 4, 3: 0, 4: -4, 5: -8}


def team_of(state: State) -> tuple[int, tuple[int, ...]]:
    """(emperor or soloist, the other members of his side)."""
    if state.solo or state.guard is None:
        return state.emperor, ()
    return state.emperor, (state.guard,)


def deal_result(state: State, places: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(scores, tribute) for complete places; tribute[s] > 0 takes cards, < 0 gives (next deal)."""
    mode = state.rules.scoring
    e = state.emperor
    g = None if state.solo else state.guard
    m = state.multiplier
    pe = places[e]
    scores = [0] * 5
    tribute = [0] * 5
    if mode == "laowang":
        if g is None:
            net = _LAOWANG_SOLO[pe]
            tribute = [-net // 4] * 5
            tribute[e] = net
        else:
            e_takes, g_takes, c_gives = _LAOWANG_PAIRS[tuple(sorted((pe, places[g])))]
            tribute = [-c_gives] * 5
            tribute[e], tribute[g] = e_takes, g_takes
        return tuple(tribute), tuple(tribute)
    if mode == "campus":
        if g is None:
            won = _CAMPUS_CHIPS[pe - 1] * 2 > 5
            scores = [-1 if won else 1] * 5
            scores[e] = 4 if won else -4
        else:
            chips = _CAMPUS_CHIPS[pe - 1] + _CAMPUS_CHIPS[places[g] - 1]
            won = chips * 2 > 5
            sign = 1 if won else -1
            scores = [-sign] * 5
            scores[e], scores[g] = 2 * sign, sign
        return tuple(s * m for s in scores), tuple(tribute)
    if mode == "wuren":
        if g is None:
            side = _PLACE_POINTS[pe - 1]
            scores = [-side * m] * 5
            scores[e] = side * m
            if side:
                per_opponent = m * (1 if side > 0 else -1)
                tribute = [-per_opponent] * 5
                tribute[e] = 4 * per_opponent
        else:
            side = _PLACE_POINTS[pe - 1] + _PLACE_POINTS[places[g] - 1]
            scores = [-side] * 5
            scores[e] = scores[g] = side
            if side > 0:
                tribute = [-1] * 5
                tribute[e], tribute[g] = 2, 1
            elif side < 0:
                tribute = [1] * 5
                tribute[e], tribute[g] = -2, -1
        return tuple(scores), tuple(tribute)
    # weihai, lianzhong, pagat: zero-sum tables.
    if g is None:
        soloist = _solo_score(mode, state.solo, pe)
        scores = [-soloist // 4] * 5
        scores[e] = soloist
    else:
        pg = places[g]
        if mode == "weihai":
            side = _PLACE_POINTS[pe - 1] + _PLACE_POINTS[pg - 1]
        elif mode == "lianzhong":
            side = 6 - (pe + pg)
        else:
            side = _PAGAT_POINTS[pe - 1] + _PAGAT_POINTS[pg - 1]
        scores = [-side] * 5
        scores[e], scores[g] = 2 * side, side
    scores = [s * m for s in scores]
    if mode == "pagat":
        tribute = _pagat_tribute(e, g, scores[e])
    return tuple(scores), tuple(tribute)


def _solo_score(mode: str, solo: str | None, place: int) -> int:
    hidden = solo == "hidden"
    if mode == "weihai":
        if hidden:
            return (16, 8, 0, -8, -16)[place - 1]
        return 32 if place == 1 else -32
    if hidden:  # lianzhong and pagat
        return 12 if place == 1 else 0 if place == 2 else -12
    return 24 if place == 1 else -24


def _pagat_tribute(e: int, g: int | None, emperor_score: int) -> list[int]:
    """Losers give their highest non-joker cards: emperor 2, guard 1, each commoner 1; soloist 4."""
    tribute = [0] * 5
    if emperor_score == 0:
        return tribute
    sign = 1 if emperor_score > 0 else -1
    if g is None:
        tribute = [-sign] * 5
        tribute[e] = 4 * sign
    else:
        tribute = [-sign] * 5
        tribute[e], tribute[g] = 2 * sign, sign
    return tribute


def outcome_if_fixed(state: State) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The result when no finishing order of the remaining players can change it, else None."""
    finished = state.finish_order
    remaining = [s for s in range(5) if s not in finished]
    open_places = list(range(len(finished) + 1, 6))
    base = list(state.places)
    first = None
    for order in permutations(open_places):
        for seat, place in zip(remaining, order):
            base[seat] = place
        result = deal_result(state, tuple(base))
        if first is None:
            first = result
        elif result != first:
            return None
    return first


def final_places(state: State) -> tuple[int, ...]:
    """Remaining players take the remaining places in seat order after the last player out."""
    places = list(state.places)
    place = len(state.finish_order)
    seat = state.finish_order[-1] if state.finish_order else state.start_seat
    for _ in range(4):
        seat = next_seat(seat)
        if places[seat] is None:
            place += 1
            places[seat] = place
    return tuple(places)


def tribute_plan(state: State, tribute: tuple[int, ...], places: tuple[int, ...]) -> dict:
    """What the next deal hands over: givers with counts, takers in finishing order."""
    gives = [[s, -n] for s, n in enumerate(tribute) if n < 0]
    takers = sorted((s for s, n in enumerate(tribute) if n > 0), key=lambda s: places[s])
    guard_middle = None
    if (state.rules.tribute == "wuren" and not state.solo and state.guard is not None
            and tribute[state.emperor] == 2 and tribute[state.guard] == 1):
        guard_middle = state.guard  # RULES §3.4: the guard takes the middle card of the three
    return {
        "gives": gives,
        "takes": [[s, tribute[s]] for s in takers],
        "guard_middle": guard_middle,
        "jokers": state.rules.tribute_jokers,
    }
