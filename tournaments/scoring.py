"""Tournament scoring (docs/tournaments.md "Scoring"): pure functions over board results.

A board result is one deal of one table: the five deal scores by seat and who held each seat (a user
id, or None for a bot). Duplicate matchpoints compare, for each (round, board, seat), every holder of
that seat across the round's tables: 2 per holder beaten, 1 per tie. Standings sort by matchpoints
(duplicate only), then total score, then rating; bots are compared but never ranked.
"""

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class BoardResult:
    round: int
    board: int
    table: int
    scores: tuple[int, ...]  # by seat; a void or unplayed board scores 0 at every seat
    holders: tuple[int | None, ...]  # user ids by seat; None: a bot


@dataclass(frozen=True)
class Standing:
    rank: int
    user: int
    matchpoints: int
    score: int
    rating: float


def matchpoints(scores: Sequence[int]) -> list[int]:
    """The matchpoints of each of `scores` (one seat's scores on one board across tables)."""
    return [
        sum(2 if other < mine else 1 if other == mine else 0 for other in scores)
        - 1  # minus the tie with itself
        for mine in scores
    ]


def totals(results: Iterable[BoardResult], *, duplicate: bool) -> tuple[dict[int, int], dict[int, int]]:
    """(matchpoints, score) by user over `results`; matchpoints are all 0 unless `duplicate`."""
    points: dict[int, int] = defaultdict(int)
    score: dict[int, int] = defaultdict(int)
    by_position: dict[tuple[int, int, int], list[tuple[int | None, int]]] = defaultdict(list)
    for result in results:
        for seat, (holder, deal_score) in enumerate(zip(result.holders, result.scores, strict=True)):
            if holder is not None:
                score[holder] += deal_score
            by_position[(result.round, result.board, seat)].append((holder, deal_score))
    if duplicate:
        for position in by_position.values():
            for (holder, _), earned in zip(position, matchpoints([s for _, s in position]), strict=True):
                if holder is not None:
                    points[holder] += earned
    return dict(points), dict(score)


def standings(
    results: Iterable[BoardResult],
    *,
    players: Iterable[int],
    ratings: dict[int, float],
    penalties: dict[int, int] | None = None,
    duplicate: bool,
) -> list[Standing]:
    """`players` ranked; equal on every key share a rank (1, 2, 2, 4). `penalties`: points taken off
    a user's total score (leaving a running deal, docs/rules.md §5)."""
    points, score = totals(results, duplicate=duplicate)
    penalties = penalties or {}
    rows = [
        (points.get(user, 0), score.get(user, 0) - penalties.get(user, 0), ratings.get(user, 0.0), user)
        for user in players
    ]
    rows.sort(key=lambda row: (-row[0], -row[1], -row[2], row[3]))
    ranked: list[Standing] = []
    for index, (mp, total, rating, user) in enumerate(rows):
        tied = ranked and (ranked[-1].matchpoints, ranked[-1].score, ranked[-1].rating) == (mp, total, rating)
        ranked.append(Standing(ranked[-1].rank if tied else index + 1, user, mp, total, rating))
    return ranked
