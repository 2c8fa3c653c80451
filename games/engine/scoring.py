"""Settlement: each preset's scoring table, tribute owed, and the early end of a deal.

docs/rules.md §1 "End of a deal": a deal ends as soon as every score and every tribute count is fixed
whatever order the remaining players would finish in; the remaining players then take the
remaining places in seat order after the last player out. §3.x "Scoring" and "Tribute".
"""

from __future__ import annotations

from itertools import permutations

from .state import State, Tribute, next_seat

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
    result = _RESULT_BY_SCORING.get(state.rules.scoring, _zero_sum_result)
    emperor = state.emperor
    guard = None if state.solo else state.guard
    return result(state, emperor, guard, places)


def _laowang_result(state: State, emperor: int, guard: int | None, places) -> tuple[tuple, tuple]:
    """§3.6: the score is the tribute, in cards, by the emperor's and guard's places."""
    if guard is None:
        soloist_net = _LAOWANG_SOLO[places[emperor]]
        tribute = [-soloist_net // 4] * 5
        tribute[emperor] = soloist_net
    else:
        side_places = tuple(sorted((places[emperor], places[guard])))
        emperor_takes, guard_takes, commoner_gives = _LAOWANG_PAIRS[side_places]
        tribute = [-commoner_gives] * 5
        tribute[emperor], tribute[guard] = emperor_takes, guard_takes
    return tuple(tribute), tuple(tribute)


def _campus_result(state: State, emperor: int, guard: int | None, places) -> tuple[tuple, tuple]:
    """§3.5: the side with more chips wins; no tribute."""
    chips = _CAMPUS_CHIPS[places[emperor] - 1]
    if guard is None:
        won = chips * 2 > 5  # a soloist's chips against the other four's total
        scores = [-1 if won else 1] * 5
        scores[emperor] = 4 if won else -4
    else:
        won = (chips + _CAMPUS_CHIPS[places[guard] - 1]) * 2 > 5
        sign = 1 if won else -1
        scores = [-sign] * 5
        scores[emperor], scores[guard] = 2 * sign, sign
    return tuple(score * state.multiplier for score in scores), (0,) * 5


def _wuren_result(state: State, emperor: int, guard: int | None, places) -> tuple[tuple, tuple]:
    """§3.4: every player scores his team's place points; the losing side gives tribute."""
    multiplier = state.multiplier
    tribute = [0] * 5
    if guard is None:
        soloist_points = _PLACE_POINTS[places[emperor] - 1]
        scores = [-soloist_points * multiplier] * 5
        scores[emperor] = soloist_points * multiplier
        if soloist_points:
            per_opponent = multiplier * (1 if soloist_points > 0 else -1)
            tribute = [-per_opponent] * 5
            tribute[emperor] = 4 * per_opponent
        return tuple(scores), tuple(tribute)
    side_points = _PLACE_POINTS[places[emperor] - 1] + _PLACE_POINTS[places[guard] - 1]
    scores = [-side_points] * 5
    scores[emperor] = scores[guard] = side_points
    if side_points:
        won = 1 if side_points > 0 else -1
        tribute = [-won] * 5
        tribute[emperor], tribute[guard] = 2 * won, won
    return tuple(scores), tuple(tribute)


def _zero_sum_result(state: State, emperor: int, guard: int | None, places) -> tuple[tuple, tuple]:
    """weihai §3.1, lianzhong §3.2–3.3, pagat §3.7: the others pay what the emperor's side wins."""
    mode = state.rules.scoring
    emperor_place = places[emperor]
    if guard is None:
        soloist_score = _solo_score(mode, state.solo, emperor_place)
        scores = [-soloist_score // 4] * 5
        scores[emperor] = soloist_score
    else:
        guard_place = places[guard]
        if mode == "weihai":
            side = _PLACE_POINTS[emperor_place - 1] + _PLACE_POINTS[guard_place - 1]
        elif mode == "lianzhong":
            side = 6 - (emperor_place + guard_place)
        else:
            side = _PAGAT_POINTS[emperor_place - 1] + _PAGAT_POINTS[guard_place - 1]
        scores = [-side] * 5
        scores[emperor], scores[guard] = 2 * side, side
    scores = [score * state.multiplier for score in scores]
    tribute = _pagat_tribute(emperor, guard, scores[emperor]) if mode == "pagat" else [0] * 5
    return tuple(scores), tuple(tribute)


_RESULT_BY_SCORING = {"laowang": _laowang_result, "campus": _campus_result, "wuren": _wuren_result}


def _solo_score(mode: str, solo: str | None, place: int) -> int:
    hidden = solo == "hidden"
    if mode == "weihai":
        if hidden:
            return (16, 8, 0, -8, -16)[place - 1]
        return 32 if place == 1 else -32
    if hidden:  # lianzhong and pagat
        return 12 if place == 1 else 0 if place == 2 else -12
    return 24 if place == 1 else -24


def _pagat_tribute(emperor: int, guard: int | None, emperor_score: int) -> list[int]:
    """Losers give their highest non-joker cards: emperor 2, guard 1, each commoner 1; soloist 4."""
    if emperor_score == 0:
        return [0] * 5
    won = 1 if emperor_score > 0 else -1
    tribute = [-won] * 5
    if guard is None:
        tribute[emperor] = 4 * won
    else:
        tribute[emperor], tribute[guard] = 2 * won, won
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


def tribute_plan(state: State, tribute: tuple[int, ...], places: tuple[int, ...]) -> Tribute:
    """What the next deal hands over: givers with counts, takers in finishing order."""
    gives = tuple((s, -n) for s, n in enumerate(tribute) if n < 0)
    takers = sorted((s for s, n in enumerate(tribute) if n > 0), key=lambda s: places[s])
    guard_middle = None
    if (state.rules.tribute == "wuren" and not state.solo and state.guard is not None
            and tribute[state.emperor] == 2 and tribute[state.guard] == 1):
        guard_middle = state.guard  # docs/rules.md §3.4: the guard takes the middle card of the three
    return Tribute(gives=gives, takes=tuple((s, tribute[s]) for s in takers), guard_middle=guard_middle,
                   jokers=state.rules.tribute_jokers)
