"""Tournaments (docs/tournaments.md): entering, starting, and the step that seats each round.

Rounds are advanced by `tournament_step` alone, run by the beat sweep and by a task sent when one of
the tournament's tables closes (tournaments.tasks): matchmaking's deal loop knows nothing of
tournaments. Each step locks the tournament's row, so two steps at once advance a round once.
"""

import random
import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts import selectors as account_selectors
from accounts.feed import feed_append_many
from accounts.models import SanctionKind
from accounts.webhooks.outbox import webhook_enqueue
from games import selectors as game_selectors
from infra.api.errors import ApiError, ErrorCode
from matchmaking import bots
from matchmaking import services as table_services
from matchmaking.models import TableStatus
from tournaments import formats, selectors
from tournaments.models import (
    CancelledReason,
    Entry,
    Round,
    RoundTable,
    Tournament,
    TournamentFormat,
    TournamentStatus,
)

# docs/rules.md §3.5 (campus): the second foul sends a player off.
FOULS_SEND_OFF = 2
MIN_PLAYERS = 2


def tournament_create(*, creator: Any, preset: str, options: dict, **fields: Any) -> Tournament:
    if not creator.is_staff:
        raise ApiError(ErrorCode.PERMISSION_DENIED, "Only staff may create tournaments.")
    rules = game_selectors.rules_for(preset=preset, options=options)
    return Tournament.objects.create(created_by=creator, preset=rules.name, options=dict(options), **fields)


def _locked(tournament_id: int) -> Tournament:
    try:
        return Tournament.objects.select_for_update().get(pk=tournament_id)
    except Tournament.DoesNotExist:
        raise ApiError(ErrorCode.NOT_FOUND, "No such tournament.") from None


def _refuse_closed(tournament: Tournament) -> None:
    if tournament.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        raise ApiError(ErrorCode.TOURNAMENT_CLOSED, f"This tournament is {tournament.status}.")


@transaction.atomic
def tournament_join(*, tournament_id: int, user: Any) -> Tournament:
    """Enter `user`; entering twice answers as the first time (a retried request)."""
    tournament = _locked(tournament_id)
    if user.is_bot:
        raise ApiError(ErrorCode.PERMISSION_DENIED, "Bots fill tables; they do not enter tournaments.")
    sanction = account_selectors.sanction_active(
        user_id=user.pk, kinds=[SanctionKind.BAN, SanctionKind.QUEUE_BAN]
    )
    if sanction is not None:
        raise account_selectors.banned_error(sanction=sanction)
    if Entry.objects.filter(tournament=tournament, user=user).exists():
        return tournament
    _refuse_closed(tournament)
    if tournament.status != TournamentStatus.REGISTERING:
        raise ApiError(ErrorCode.TOURNAMENT_STARTED, "This tournament has started; entries are closed.")
    if Entry.objects.filter(tournament=tournament).count() >= tournament.max_players:
        raise ApiError(
            ErrorCode.TOURNAMENT_FULL,
            "This tournament is full.",
            extra={"max_players": tournament.max_players},
        )
    try:
        with transaction.atomic():
            Entry.objects.create(tournament=tournament, user=user)
    except IntegrityError:
        pass  # the same user's other request entered him first
    return tournament


@transaction.atomic
def tournament_leave(*, tournament_id: int, user: Any) -> Tournament:
    """Before the start: the entry is removed. During: withdrawn — not seated again, not ranked; a
    running table of his plays on with his seat on 托管, then a bot (docs/tournaments.md)."""
    tournament = _locked(tournament_id)
    _refuse_closed(tournament)
    entry = Entry.objects.filter(tournament=tournament, user=user, withdrawn_at__isnull=True).first()
    if entry is None:
        raise ApiError(ErrorCode.PERMISSION_DENIED, "You are not entered in this tournament.")
    if tournament.status == TournamentStatus.REGISTERING:
        entry.delete()
        return tournament
    entry.withdrawn_at = timezone.now()
    entry.save(update_fields=["withdrawn_at"])
    seated = RoundTable.objects.filter(
        round__tournament=tournament,
        round__number=tournament.current_round,
        table__status=TableStatus.PLAYING,
        table__seats__user=user,
    ).values_list("table_id", flat=True)
    for table_id in seated:
        table_services.table_leave(table_id=table_id, user=user)
    return tournament


@transaction.atomic
def tournament_start(*, tournament_id: int) -> Tournament:
    """`POST tournaments/{id}/start` (staff): start now, whatever `starts_at` says."""
    tournament = _locked(tournament_id)
    _refuse_closed(tournament)
    if tournament.status != TournamentStatus.REGISTERING:
        raise ApiError(ErrorCode.TOURNAMENT_STARTED, "This tournament has already started.")
    _start(tournament)
    return tournament


@transaction.atomic
def tournament_cancel(*, tournament_id: int) -> Tournament:
    """Staff (the admin): no further round is seated; tables already playing play on."""
    tournament = _locked(tournament_id)
    _refuse_closed(tournament)
    _cancel(tournament, reason=CancelledReason.STAFF)
    return tournament


def tournament_step(*, tournament_id: int) -> None:
    """Start a tournament whose `starts_at` has come; seat the next round once every table of the
    current one has closed; finish after the last. Safe to run any number of times at once."""
    with transaction.atomic():
        try:
            tournament = Tournament.objects.select_for_update(skip_locked=True).get(pk=tournament_id)
        except Tournament.DoesNotExist:
            return  # gone, or another step holds it and does this work
        if tournament.status == TournamentStatus.REGISTERING:
            if tournament.starts_at is not None and tournament.starts_at <= timezone.now():
                _start(tournament)
            return
        if tournament.status != TournamentStatus.RUNNING:
            return
        current = Round.objects.get(tournament=tournament, number=tournament.current_round)
        if not selectors.round_is_over(tables=selectors.round_tables(round=current)):
            return
        current.finished_at = timezone.now()
        current.save(update_fields=["finished_at"])
        if current.number < tournament.rounds:
            _round_create(tournament, number=current.number + 1)
        else:
            _finish(tournament)


def tournaments_due() -> list[int]:
    """The tournaments a sweep steps: running ones, and registering ones whose start has come."""
    due = Q(status=TournamentStatus.RUNNING) | Q(
        status=TournamentStatus.REGISTERING, starts_at__lte=timezone.now()
    )
    return list(Tournament.objects.filter(due).order_by("pk").values_list("pk", flat=True))


def _cancel(tournament: Tournament, *, reason: str) -> None:
    tournament.status = TournamentStatus.CANCELLED
    tournament.cancelled_reason = reason
    tournament.finished_at = timezone.now()
    tournament.save(update_fields=["status", "cancelled_reason", "finished_at"])


def _start(tournament: Tournament) -> None:
    if Entry.objects.filter(tournament=tournament).count() < MIN_PLAYERS:
        _cancel(tournament, reason=CancelledReason.TOO_FEW_PLAYERS)
        return
    tournament.status = TournamentStatus.RUNNING
    tournament.started_at = timezone.now()
    tournament.save(update_fields=["status", "started_at"])
    _round_create(tournament, number=1)


def _players(tournament: Tournament) -> list[int]:
    """Who is seated this round: entries not withdrawn, less those sent off by their second foul."""
    fouls = selectors.fouls_of(tournament=tournament)
    sent_off = [user for user, count in fouls.items() if count >= FOULS_SEND_OFF]
    Entry.objects.filter(tournament=tournament, user_id__in=sent_off).update(sent_off=True)
    return list(
        Entry.objects.filter(tournament=tournament, withdrawn_at__isnull=True, sent_off=False)
        .order_by("user_id")
        .values_list("user_id", flat=True)
    )


def _seating(
    tournament: Tournament, *, number: int, players: list[int], rng: random.Random
) -> list[list[int]]:
    sizes = formats.table_sizes(len(players), bots_fill=tournament.bots_fill)
    if tournament.format == TournamentFormat.DRAW:
        return formats.seat_draw(players, sizes=sizes, rng=rng)
    if number == 1:
        ratings = selectors.ratings_of(user_ids=players, preset=tournament.preset)
        order = sorted(players, key=lambda user: (-ratings[user], user))
    else:
        still_in = set(players)
        order = [
            row.user for row in selectors.standings_compute(tournament=tournament) if row.user in still_in
        ]
    return formats.seat_swiss(order, sizes=sizes, met=selectors.met_of(tournament=tournament))


def _round_create(tournament: Tournament, *, number: int) -> None:
    players = _players(tournament)
    if len(players) < MIN_PLAYERS:
        _finish(tournament)
        return
    rng = random.Random(secrets.randbits(64))
    groups = _seating(tournament, number=number, players=players, rng=rng)
    if not groups:  # fewer than five players and no bots to fill a table
        if number == 1:
            _cancel(tournament, reason=CancelledReason.TOO_FEW_PLAYERS)
        else:
            _finish(tournament)
        return
    seeds = [secrets.randbits(63) for _ in range(tournament.deals_per_round)] if tournament.duplicate else []
    round = Round.objects.create(tournament=tournament, number=number, seeds=seeds)
    tournament.current_round = number
    tournament.save(update_fields=["current_round"])
    for index, group in enumerate(groups, start=1):
        seats = formats.seats_shuffle(group, rng=rng)
        _table_seat(tournament, round=round, number=index, seats=seats, entrants=players)


def _table_seat(
    tournament: Tournament, *, round: Round, number: int, seats: list[int | None], entrants: list[int]
) -> None:
    """Seat one table of `round`: `seats` holds user ids by seat, None where a bot sits. The bots that
    fill it are none of the round's `entrants` (an entrant may be a bot account: bench/tournament.py's
    are), who sit at their own tables."""
    humans = {
        user.pk: user for user in get_user_model().objects.filter(pk__in=[u for u in seats if u is not None])
    }
    fill = iter(bots.bot_users_take(count=seats.count(None), exclude=entrants))
    users = [next(fill) if user is None else humans[user] for user in seats]
    table = table_services.table_create(
        creator=tournament.created_by,
        preset=tournament.preset,
        options=tournament.options,
        deals=tournament.deals_per_round,
        # Private: a player of another table of the round cannot read its deals, replays or events.
        private=True,
        setups=[{"seed": seed} for seed in round.seeds],
        # A player who withdraws mid-round is played by 托管, then by a bot from the next deal.
        bots_replace_leavers=True,
    )
    table.matched, table.rated, table.boards = True, tournament.rated, tournament.duplicate
    table.save(update_fields=["matched", "rated", "boards"])
    RoundTable.objects.create(
        round=round,
        number=number,
        table=table,
        seats=[user.pk for user in users],
        bots=[user is None for user in seats],
    )

    def round_entries(game) -> list[tuple[int, str, dict]]:
        # Before the deal's own entries (deal_started, your_turn): where each player sits this round.
        return [
            (
                user,
                "tournament_round",
                {
                    "tournament": tournament.pk,
                    "round": round.number,
                    "table": table.pk,
                    "seat": seat,
                    "game": game.pk,
                },
            )
            for seat, user in enumerate(seats)
            if user is not None
        ]

    for seat, user in enumerate(users):
        # The fifth join deals the first board; the feed names table and seat before it.
        first = round_entries if seat == len(users) - 1 else None
        table_services.table_join(table_id=table.pk, user=user, code=table.code, seat=seat, feed_first=first)


def _finish(tournament: Tournament) -> None:
    standings = {row.user: row for row in selectors.standings_compute(tournament=tournament)}
    entries = list(Entry.objects.filter(tournament=tournament).select_related("user"))
    for entry in entries:
        row = standings.get(entry.user_id)
        entry.rank = row.rank if row else None
        entry.score = row.score if row else 0
        entry.matchpoints = row.matchpoints if row else 0
    Entry.objects.bulk_update(entries, ["rank", "score", "matchpoints"])
    tournament.status = TournamentStatus.FINISHED
    tournament.finished_at = timezone.now()
    tournament.save(update_fields=["status", "finished_at"])
    feed_append_many(
        [
            (
                entry.user_id,
                "tournament_finished",
                {
                    "tournament": tournament.pk,
                    "rank": entry.rank,
                    "matchpoints": entry.matchpoints,
                    "score": entry.score,
                },
            )
            for entry in entries
        ]
    )
    ranked = sorted((e for e in entries if e.rank is not None), key=lambda e: (e.rank, e.user_id))
    webhook_enqueue(
        event="tournament.finished",
        data={
            "tournament": tournament.pk,
            "name": tournament.name,
            "standings": [
                {
                    "rank": e.rank,
                    "user": e.user_id,
                    "username": e.user.username,
                    "matchpoints": e.matchpoints,
                    "score": e.score,
                }
                for e in ranked
            ],
        },
        user_ids=[tournament.created_by_id, *(entry.user_id for entry in entries)],
    )
