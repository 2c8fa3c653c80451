"""The matcher (docs/matchmaking.md "Matching"): the service behind the beat task `matchmaking.tickets_match`.

Waiting tickets are pooled by (preset, options, rated, bot level) and seated five at a time.

Rated pools: the oldest ticket first, the matcher takes the five tickets nearest to it in rating
(the tightest window of five consecutive ordinals that contains it) and seats them when

    max(ordinal) - min(ordinal) <= MATCHMAKING_SPREAD_BASE + MATCHMAKING_SPREAD_PER_SECOND * wait

where `wait` is how long the group's oldest ticket has waited (defaults: 5 + 0.5 per second, so a
lone player is matched with anyone after a few minutes). A ticket with `bots` still waiting after
MATCHMAKING_BOTS_AFTER seconds is seated with the nearest-rated tickets that accept bots and fit
the same window, and bots in the empty seats.

Unrated pools hold parties and unrated single tickets; ratings are not compared. A party (tickets
with one party code, at most four; a larger one is cut into fours by age) is ready once it has four
members or no one joined it for MATCHMAKING_PARTY_GATHER seconds. Ready parties and single tickets
are packed, oldest first, into tables of five, or seated with bots after MATCHMAKING_BOTS_AFTER
seconds when every ticket of the table accepts bots.

Concurrency: each pool's tickets are locked with `select_for_update(skip_locked=True)`, so two runs
at once share the tickets out instead of both seating one, and a ticket that is being cancelled
(locked by the cancel) is skipped; a cancelled ticket is no longer `waiting` and is never read.
Seating one table is one savepoint inside a transaction of at most TABLES_PER_TRANSACTION tables:
the table, its seats (through `table_join`, so the fifth starts the deal), the tickets and a
`ticket_matched` feed entry per player; the ticket long-polls are woken after commit.
"""

import bisect
import json
import logging
import random
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone

from games import selectors as game_selectors
from infra import metrics
from infra.api.errors import ApiError
from matchmaking import bots, services, tickets
from matchmaking.models import Table, Ticket, TicketStatus

logger = logging.getLogger(__name__)

SEATS = 5
_seat_shuffle = random.SystemRandom()


@dataclass(frozen=True)
class Group:
    """Tickets to seat at one new table, and how many bots fill the rest."""

    tickets: tuple[Ticket, ...]
    bots: int = 0


def _waited(ticket: Ticket, now: datetime) -> float:
    return (now - ticket.created_at).total_seconds()


def _by_age(items: Iterable[Ticket]) -> list[Ticket]:
    return sorted(items, key=lambda t: (t.created_at, t.pk))


def allowed_spread(*, group: Iterable[Ticket], now: datetime) -> float:
    """The widest ordinal spread a table may have: it widens with its oldest ticket's wait."""
    oldest_wait = max(_waited(t, now) for t in group)
    return settings.MATCHMAKING_SPREAD_BASE + settings.MATCHMAKING_SPREAD_PER_SECOND * max(oldest_wait, 0.0)


def rating_spread(group: Iterable[Ticket]) -> float:
    ratings = [t.rating for t in group]
    return max(ratings) - min(ratings)


def _bots_due(group: Iterable[Ticket], now: datetime) -> bool:
    group = list(group)
    return (
        all(t.bots for t in group) and max(_waited(t, now) for t in group) >= settings.MATCHMAKING_BOTS_AFTER
    )


# --- Planning (pure: tickets in, groups out) ---------------------------------------------------------


def _ladder_key(ticket: Ticket) -> tuple:
    return (ticket.rating, ticket.created_at, ticket.pk)


def plan_rated(pool: list[Ticket], now: datetime) -> list[Group]:
    # The ladder: the untaken tickets by rating (with its keys for bisection), kept sorted as groups
    # leave it, so a pool of n tickets costs O(n log n) comparisons plus list moves done in C.
    ladder = sorted(pool, key=_ladder_key)
    keys = [_ladder_key(t) for t in ladder]
    widest = allowed_spread(group=pool, now=now) if pool else 0.0
    groups: list[Group] = []
    for anchor in _by_age(pool):
        index = bisect.bisect_left(keys, _ladder_key(anchor))
        if index == len(keys) or keys[index] != _ladder_key(anchor):
            continue  # already seated in this run
        group = _tightest_five(ladder, index)
        if group is not None and rating_spread(group) <= allowed_spread(group=group, now=now):
            groups.append(Group(tickets=tuple(group)))
        elif _bots_due([anchor], now):
            group = _nearest_accepting_bots(ladder, index, now, widest=widest)
            groups.append(Group(tickets=tuple(group), bots=SEATS - len(group)))
        else:
            continue
        for ticket in group:
            position = bisect.bisect_left(keys, _ladder_key(ticket))
            del keys[position], ladder[position]
    return groups


def _tightest_five(ladder: list[Ticket], index: int) -> list[Ticket] | None:
    """Of the windows of five consecutive ratings that contain ladder[index], the narrowest."""
    if len(ladder) < SEATS:
        return None
    starts = range(max(0, index - SEATS + 1), min(index, len(ladder) - SEATS) + 1)
    return min((ladder[s : s + SEATS] for s in starts), key=rating_spread)


def _nearest_accepting_bots(
    ladder: list[Ticket], index: int, now: datetime, *, widest: float
) -> list[Ticket]:
    """ladder[index] and up to three more bots-accepting tickets, nearest in rating first, that keep the
    group inside its window. The walk outwards stops `widest` (the pool's widest window) away."""
    anchor = ladder[index]
    group = [anchor]
    left, right = index - 1, index + 1
    while len(group) < SEATS - 1:
        left_gap = anchor.rating - ladder[left].rating if left >= 0 else None
        right_gap = ladder[right].rating - anchor.rating if right < len(ladder) else None
        if left_gap is None and right_gap is None:
            break
        if right_gap is None or (left_gap is not None and left_gap <= right_gap):
            candidate, gap, left = ladder[left], left_gap, left - 1
        else:
            candidate, gap, right = ladder[right], right_gap, right + 1
        if gap > widest:
            break
        trial = [*group, candidate]
        if candidate.bots and rating_spread(trial) <= allowed_spread(group=trial, now=now):
            group = trial
    return group


def _units(pool: list[Ticket], now: datetime) -> list[list[Ticket]]:
    """Single tickets and ready parties (chunks of at most PARTY_MAX by age), oldest first."""
    units: list[list[Ticket]] = []
    parties: dict[str, list[Ticket]] = defaultdict(list)
    for ticket in _by_age(pool):
        if ticket.party:
            parties[ticket.party].append(ticket)
        else:
            units.append([ticket])
    gather = settings.MATCHMAKING_PARTY_GATHER
    for members in parties.values():
        for start in range(0, len(members), tickets.PARTY_MAX):
            chunk = members[start : start + tickets.PARTY_MAX]
            if len(chunk) == tickets.PARTY_MAX or min(_waited(t, now) for t in chunk) >= gather:
                units.append(chunk)
    return sorted(units, key=lambda unit: (unit[0].created_at, unit[0].pk))


def plan_unrated(pool: list[Ticket], now: datetime) -> list[Group]:
    units = _units(pool, now)
    used: set[int] = set()
    groups: list[Group] = []
    for index, anchor in enumerate(units):
        if index in used:
            continue
        full = _pack(units, used, start=index, accept=lambda unit: True)
        if sum(len(units[i]) for i in full) == SEATS:
            chosen = full
        elif _bots_due(anchor, now):
            chosen = _pack(units, used, start=index, accept=lambda unit: all(t.bots for t in unit))
        else:
            continue
        used.update(chosen)
        members = tuple(t for i in sorted(chosen) for t in units[i])
        groups.append(Group(tickets=members, bots=SEATS - len(members)))
    return groups


def _pack(units: list[list[Ticket]], used: set[int], *, start: int, accept) -> list[int]:
    """Unit `start` and the next unused units (oldest first) that still fit in five seats."""
    chosen, size = [start], len(units[start])
    for index in range(start + 1, len(units)):
        if size == SEATS:
            break
        if index in used or size + len(units[index]) > SEATS or not accept(units[index]):
            continue
        chosen.append(index)
        size += len(units[index])
    return chosen


# --- Running it --------------------------------------------------------------------------------------


def tickets_match(now: datetime | None = None) -> int:
    """One matcher run: expire stale tickets, then seat what can be seated. Returns tickets seated."""
    now = now or timezone.now()
    tickets.tickets_expire(now=now)
    keys = set(Ticket.objects.filter(status=TicketStatus.WAITING).values_list("preset", "rated").distinct())
    return sum(_pool_match(preset=preset, rated=rated, now=now) for preset, rated in sorted(keys))


# One transaction seats at most this many tables, so its ticket locks are held (and its players'
# wake-ups, sent at commit, wait) no longer than that takes; the next batch re-reads and re-plans.
TABLES_PER_TRANSACTION = 10


def _pool_match(*, preset: str, rated: bool, now: datetime) -> int:
    seated = 0
    while True:
        batch, more = _pool_match_batch(preset=preset, rated=rated, now=now)
        seated += batch
        if not (more and batch):
            return seated


def _pool_match_batch(*, preset: str, rated: bool, now: datetime) -> tuple[int, bool]:
    """Seat up to TABLES_PER_TRANSACTION tables; also says whether more groups were ready."""
    with transaction.atomic():
        waiting = list(
            Ticket.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("user")
            .filter(status=TicketStatus.WAITING, preset=preset, rated=rated)
            .order_by("created_at", "pk")
        )
        pools: dict[str, list[Ticket]] = defaultdict(list)
        for ticket in waiting:
            if not tickets.ticket_may_queue(user=ticket.user):
                tickets.ticket_settle(ticket=ticket, status=TicketStatus.CANCELLED, reason="banned")
                continue
            # Tickets asking different bot levels never share a table (docs/matchmaking.md).
            pools[json.dumps([ticket.options, ticket.bot_level], sort_keys=True)].append(ticket)
        ready = [
            (group, pool[0].options)
            for pool in pools.values()
            for group in (plan_rated(pool, now) if rated else plan_unrated(pool, now))
        ]
        seated = sum(
            _group_seat(group=group, preset=preset, options=options, rated=rated, now=now)
            for group, options in ready[:TABLES_PER_TRANSACTION]
        )
    return seated, len(ready) > TABLES_PER_TRANSACTION


def _group_seat(*, group: Group, preset: str, options: dict, rated: bool, now: datetime) -> int:
    """Seat one group at a new table in a savepoint: a failure leaves its tickets waiting."""
    try:
        with transaction.atomic():
            table = _table_fill(group=group, preset=preset, options=options, rated=rated)
            game_id = game_selectors.game_running_id(table_id=table.pk)
            seat_of = dict(table.seats.values_list("user_id", "seat"))
            for ticket in group.tickets:
                ticket.table, ticket.game_id, ticket.seat = table, game_id, seat_of[ticket.user_id]
                ticket.matched_at = now
                tickets.ticket_settle(
                    ticket=ticket, status=TicketStatus.MATCHED, fields=("table", "game", "seat", "matched_at")
                )
                waited = (now - ticket.created_at).total_seconds()
                metrics.record_ticket_matched(preset=preset, seconds=waited)
    except (ApiError, DatabaseError):
        logger.exception("matcher could not seat tickets %s", [t.pk for t in group.tickets])
        return 0
    return len(group.tickets)


def _table_fill(*, group: Group, preset: str, options: dict, rated: bool) -> Table:
    players = [t.user for t in group.tickets] + bots.bot_users_take(count=group.bots)
    table = services.table_create(creator=players[0], preset=preset, options=options)
    table.matched, table.rated = True, rated
    # Players who asked for bots keep playing with a bot where one of them leaves mid-match.
    table.bots_replace_leavers = all(ticket.bots for ticket in group.tickets)
    table.bot_level = group.tickets[0].bot_level  # the same in the whole pool
    table.save(update_fields=["matched", "rated", "bots_replace_leavers", "bot_level"])
    # Random seats: the seat decides who leads the first deal, and party members need not sit together.
    seats = list(range(SEATS))
    _seat_shuffle.shuffle(seats)
    seat_of = {user.pk: seat for user, seat in zip(players, seats, strict=True)}

    def ticket_matched(game) -> list[tuple[int, str, dict]]:
        # The fifth join deals: each player's feed names his table and seat before the deal's own
        # entries (deal_started, your_turn) that it starts.
        return [
            (
                ticket.user_id,
                "ticket_matched",
                {"ticket": ticket.pk, "table": table.pk, "game": game.pk, "seat": seat_of[ticket.user_id]},
            )
            for ticket in group.tickets
        ]

    for index, (user, seat) in enumerate(zip(players, seats, strict=True)):
        first = ticket_matched if index == len(players) - 1 else None
        services.table_join(table_id=table.pk, user=user, seat=seat, feed_first=first)
    table.refresh_from_db()
    return table
