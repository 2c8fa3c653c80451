"""Seating a round (docs/tournaments.md "Formats"): pure functions from the players in order to tables.

`draw` (the seed's 保皇比赛): tables drawn by lot. `swiss`: players in order of standing (round 1: of
rating) seated with their neighbours, a player who already sat with someone at the table moved down
for the next one who did not, where possible. Seats within a table are drawn by lot in both.
"""

import random
from collections.abc import Sequence

SEATS = 5
MAX_BOTS_PER_TABLE = 3


def table_sizes(players: int, *, bots_fill: bool) -> list[int]:
    """Humans per table. With bots: as many tables as five-a-table needs, the humans spread so that
    no table has more than MAX_BOTS_PER_TABLE bots (the fuller tables first). Without: only full
    tables, the rest sit the round out."""
    if players < 2:
        return []
    if not bots_fill:
        return [SEATS] * (players // SEATS)
    tables = -(-players // SEATS)
    base, extra = divmod(players, tables)
    sizes = [base + 1 if index < extra else base for index in range(tables)]
    assert all(SEATS - size <= MAX_BOTS_PER_TABLE for size in sizes)
    return sizes


def seat_draw(players: Sequence[int], *, sizes: Sequence[int], rng: random.Random) -> list[list[int]]:
    order = list(players)
    rng.shuffle(order)
    return _cut(order, sizes)


def seat_swiss(players: Sequence[int], *, sizes: Sequence[int], met: dict[int, set[int]]) -> list[list[int]]:
    """`players` best first; `met[user]`: the users he already sat with in this tournament."""
    waiting = list(players)
    tables: list[list[int]] = []
    for size in sizes:
        table = [waiting.pop(0)]
        while len(table) < size:
            fresh = next(
                (i for i, user in enumerate(waiting) if not any(user in met.get(p, ()) for p in table)), 0
            )
            table.append(waiting.pop(fresh))
        tables.append(table)
    return tables


def seats_shuffle(table: Sequence[int | None], *, rng: random.Random) -> list[int | None]:
    seats = list(table) + [None] * (SEATS - len(table))
    rng.shuffle(seats)
    return seats


def _cut(order: list[int], sizes: Sequence[int]) -> list[list[int]]:
    tables, start = [], 0
    for size in sizes:
        tables.append(order[start : start + size])
        start += size
    return tables
