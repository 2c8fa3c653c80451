"""tournaments.scoring and tournaments.formats: pure functions, checked against docs/tournaments.md."""

import random

import pytest

from tournaments import formats, scoring

# docs/tournaments.md "Worked example": one board, three tables, deal scores by seat.
EXAMPLE_SCORES = {
    "A": (4, -1, -1, -1, -1),
    "B": (4, 2, -2, -2, -2),
    "C": (-2, -1, 1, 1, 1),
}
EXAMPLE_MATCHPOINTS = {
    "A": [3, 1, 2, 2, 2],
    "B": [3, 4, 0, 0, 0],
    "C": [0, 1, 4, 4, 4],
}


def _example_results():
    # Users 1-5 at table A, 6-10 at B, 11-15 at C.
    return [
        scoring.BoardResult(1, 0, number, EXAMPLE_SCORES[name], tuple(range(5 * number - 4, 5 * number + 1)))
        for number, name in enumerate("ABC", start=1)
    ]


def test_the_worked_example_matchpoints():
    points, score = scoring.totals(_example_results(), duplicate=True)
    for number, name in enumerate("ABC", start=1):
        users = range(5 * number - 4, 5 * number + 1)
        assert [points[user] for user in users] == EXAMPLE_MATCHPOINTS[name]
        assert [score[user] for user in users] == list(EXAMPLE_SCORES[name])


def test_a_position_hands_out_t_times_t_minus_one_matchpoints():
    rng = random.Random(5)
    for tables in range(1, 9):
        scores = [rng.randint(-3, 3) for _ in range(tables)]
        assert sum(scoring.matchpoints(scores)) == tables * (tables - 1)


def test_the_worked_example_standings_matchpoints_first_then_score_then_rating():
    ratings = {user: 0.0 for user in range(1, 16)}
    ratings[1] = 5.0  # A's seat 0 is rated above B's seat 0
    rows = scoring.standings(_example_results(), players=range(1, 16), ratings=ratings, duplicate=True)
    order = [row.user for row in rows]
    assert order[:6] == [7, 13, 14, 15, 1, 6]  # 4 mp (B1 score 2 before C2-4 score 1), then 3 mp
    assert [row.rank for row in rows[:6]] == [1, 2, 2, 2, 5, 6]
    ratings[1] = 0.0
    rows = scoring.standings(_example_results(), players=range(1, 16), ratings=ratings, duplicate=True)
    assert {(row.user, row.rank) for row in rows[4:6]} == {(1, 5), (6, 5)}


def test_bots_are_compared_but_never_ranked_and_penalties_come_off_the_score():
    results = [
        scoring.BoardResult(1, 0, 1, (4, -1, -1, -1, -1), (1, 2, None, None, None)),
        scoring.BoardResult(1, 0, 2, (-2, 1, 1, 1, -1), (3, 4, 5, 6, 7)),
    ]
    rows = scoring.standings(results, players=[1, 2, 3, 4], ratings={}, penalties={1: 40}, duplicate=True)
    by_user = {row.user: row for row in rows}
    assert set(by_user) == {1, 2, 3, 4}
    assert by_user[1].matchpoints == 2 and by_user[1].score == 4 - 40
    assert by_user[4].matchpoints == 2 and by_user[2].matchpoints == 0


def test_without_duplicate_standings_are_by_score():
    results = [scoring.BoardResult(1, 0, 1, (4, -1, -1, -1, -1), (1, 2, 3, 4, 5))]
    rows = scoring.standings(results, players=[1, 2, 3, 4, 5], ratings={2: 9.0}, duplicate=False)
    assert [row.user for row in rows][:2] == [1, 2] and all(row.matchpoints == 0 for row in rows)


@pytest.mark.parametrize("players", range(2, 120))
def test_table_sizes_never_seat_more_than_three_bots_at_a_table(players):
    sizes = formats.table_sizes(players, bots_fill=True)
    assert sum(sizes) == players and len(sizes) == -(-players // 5)
    assert all(2 <= size <= 5 for size in sizes) and sizes == sorted(sizes, reverse=True)


def test_table_sizes_examples():
    assert formats.table_sizes(7, bots_fill=True) == [4, 3]
    assert formats.table_sizes(1000, bots_fill=True) == [5] * 200
    assert formats.table_sizes(1, bots_fill=True) == []
    assert formats.table_sizes(12, bots_fill=False) == [5, 5]


def test_swiss_seats_neighbours_and_avoids_repeated_tablemates():
    order = list(range(1, 26))
    first = formats.seat_swiss(order, sizes=[5] * 5, met={})
    assert first == [order[i : i + 5] for i in range(0, 25, 5)]
    met = {user: set(table) - {user} for table in first for user in table}
    second = formats.seat_swiss(order, sizes=[5] * 5, met=met)
    assert second[0] == [1, 6, 11, 16, 21]
    assert all(not (set(table) - {user}) & met[user] for table in second for user in table)


def test_swiss_repeats_tablemates_only_when_nobody_fresh_is_left():
    order = list(range(1, 11))
    met = {user: set(table) - {user} for table in ([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]) for user in table}
    assert formats.seat_swiss(order, sizes=[5, 5], met=met) == [[1, 6, 2, 3, 4], [5, 7, 8, 9, 10]]


def test_draw_and_seat_shuffle_keep_everyone():
    rng = random.Random(3)
    tables = formats.seat_draw(list(range(7)), sizes=[4, 3], rng=rng)
    assert sorted(sum(tables, [])) == list(range(7)) and [len(t) for t in tables] == [4, 3]
    seats = formats.seats_shuffle(tables[1], rng=rng)
    assert len(seats) == 5 and seats.count(None) == 2
