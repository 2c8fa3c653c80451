"""Reading tournaments: rounds, board results and standings (docs/tournaments.md).

Hidden information across tables (docs/tournaments.md "What a player can read"): a duplicate board's
results are shown only once no table of the round still plays it, its seeds only once the round is
over, and standings count finished rounds only. The tables themselves are private (matchmaking), so a
player of one table cannot read another's deals, replays or events.
"""

from collections import defaultdict
from typing import Any

from django.db.models import Count, Sum

from accounts.models import Rating
from accounts.services import rating_model
from games import selectors as game_selectors
from games.models import GameStatus
from infra.api.errors import ApiError, ErrorCode
from matchmaking.models import Penalty, PenaltyReason, TableStatus
from tournaments import scoring
from tournaments.models import Entry, Round, RoundStatus, RoundTable, Tournament

CLOSED = (TableStatus.FINISHED, TableStatus.DISSOLVED)
NO_SCORES = (0, 0, 0, 0, 0)


def tournament_get(*, tournament_id: int) -> Tournament:
    try:
        return Tournament.objects.get(pk=tournament_id)
    except Tournament.DoesNotExist:
        raise ApiError(ErrorCode.NOT_FOUND, "No such tournament.") from None


def round_get(*, tournament: Tournament, number: int) -> Round:
    try:
        return Round.objects.get(tournament=tournament, number=number)
    except Round.DoesNotExist:
        raise ApiError(
            ErrorCode.NOT_FOUND, f"Round {number} has not started.", extra={"round": number}
        ) from None


def ratings_of(*, user_ids: list[int], preset: str) -> dict[int, float]:
    """Ordinals in `preset`; a player without one has openskill's starting ordinal (mu - 3 sigma)."""
    model = rating_model()
    start = model.mu - 3 * model.sigma
    known = dict(Rating.objects.filter(user_id__in=user_ids, preset=preset).values_list("user_id", "ordinal"))
    return {user_id: known.get(user_id, start) for user_id in user_ids}


def round_tables(*, round: Round) -> list[RoundTable]:
    return list(round.tables.select_related("table").order_by("number"))


def round_is_over(*, tables: list[RoundTable]) -> bool:
    return all(row.table.status in CLOSED for row in tables)


def _games_by_table(tables: list[RoundTable]) -> dict[int, dict[int, Any]]:
    games: dict[int, dict[int, Any]] = defaultdict(dict)
    for game in game_selectors.games_of_tables(table_ids=[row.table_id for row in tables]):
        games[game.table_id][game.number] = game
    return games


def _scores(game: Any) -> tuple[int, ...]:
    # A void, aborted or all-trustee deal scores 0 at every seat (docs/tournaments.md).
    if game is None or game.status != GameStatus.OVER or game.unscored or not game.final:
        return NO_SCORES
    return tuple(game.final["scores"])


def _board_done(table: RoundTable, games: dict[int, Any], board: int) -> bool:
    game = games.get(board)
    return table.table.status in CLOSED or (game is not None and game.status != GameStatus.RUNNING)


def round_results(
    *, tournament: Tournament, round: Round, tables: list[RoundTable]
) -> list[scoring.BoardResult]:
    """The round's board results. Duplicate: every board at every table, 0 where void or not played.
    Otherwise the deals each table played (void ones are dealt again there)."""
    games = _games_by_table(tables)
    results = []
    for row in tables:
        holders = tuple(None if bot else user for user, bot in zip(row.seats, row.bots, strict=True))
        if tournament.duplicate:
            numbers = range(tournament.deals_per_round)
        else:
            numbers = [n for n, game in sorted(games[row.table_id].items()) if _scores(game) != NO_SCORES]
        for number in numbers:
            results.append(
                scoring.BoardResult(
                    round.number, number, row.number, _scores(games[row.table_id].get(number)), holders
                )
            )
    return results


def round_detail(*, tournament: Tournament, round: Round) -> dict:
    tables = round_tables(round=round)
    over = round.finished_at is not None
    games = _games_by_table(tables)
    users = dict(Entry.objects.filter(tournament=tournament).values_list("user_id", "user__username"))
    rows = []
    for row in tables:
        bot_names = (
            dict(row.table.seats.filter(user__is_bot=True).values_list("user_id", "user__username"))
            if any(row.bots)
            else {}
        )
        rows.append(
            {
                "number": row.number,
                "table": row.table_id,
                "status": row.table.status,
                "seats": [
                    {
                        "seat": seat,
                        "user": user,
                        "username": users.get(user) or bot_names.get(user),
                        "bot": bot,
                    }
                    for seat, (user, bot) in enumerate(zip(row.seats, row.bots, strict=True))
                ],
            }
        )
    boards = []
    board_count = tournament.deals_per_round if tournament.duplicate else 0
    for board in range(board_count):
        done = over or all(_board_done(row, games[row.table_id], board) for row in tables)
        boards.append(
            {
                "number": board,
                "results": [
                    {
                        "table": row.number,
                        "game": games[row.table_id][board].pk if board in games[row.table_id] else None,
                        "scores": list(_scores(games[row.table_id].get(board))),
                    }
                    for row in tables
                ]
                if done
                else None,
            }
        )
    return {
        "tournament": tournament.pk,
        "number": round.number,
        "status": RoundStatus.FINISHED if over else RoundStatus.RUNNING,
        "started_at": round.started_at,
        "finished_at": round.finished_at,
        "seeds": round.seeds if over and tournament.duplicate else None,
        "tables": rows,
        "boards": boards,
    }


def penalties_of(*, tournament: Tournament) -> dict[int, int]:
    """Points taken off each user at the tournament's tables (leaving a running deal, removal)."""
    rows = (
        Penalty.objects.filter(
            table__in=RoundTable.objects.filter(round__tournament=tournament).values("table")
        )
        .values("user_id")
        .annotate(points=Sum("points"))
    )
    return {row["user_id"]: row["points"] for row in rows}


def fouls_of(*, tournament: Tournament) -> dict[int, int]:
    """Fouls (docs/rules.md §3.5) each user was given at the tournament's tables."""
    rows = (
        Penalty.objects.filter(
            reason=PenaltyReason.FOUL,
            table__in=RoundTable.objects.filter(round__tournament=tournament).values("table"),
        )
        .values("user_id")
        .annotate(count=Count("id"))
    )
    return {row["user_id"]: row["count"] for row in rows}


def standings_compute(*, tournament: Tournament) -> list[scoring.Standing]:
    """Standings over the finished rounds, of the players still in (not withdrawn, not sent off)."""
    results: list[scoring.BoardResult] = []
    for round in Round.objects.filter(tournament=tournament, finished_at__isnull=False).order_by("number"):
        results += round_results(tournament=tournament, round=round, tables=round_tables(round=round))
    players = list(
        Entry.objects.filter(tournament=tournament, withdrawn_at__isnull=True, sent_off=False).values_list(
            "user_id", flat=True
        )
    )
    return scoring.standings(
        results,
        players=players,
        ratings=ratings_of(user_ids=players, preset=tournament.preset),
        penalties=penalties_of(tournament=tournament),
        duplicate=tournament.duplicate,
    )


def standings_detail(*, tournament: Tournament) -> dict:
    rounds = Round.objects.filter(tournament=tournament, finished_at__isnull=False).count()
    names = dict(Entry.objects.filter(tournament=tournament).values_list("user_id", "user__username"))
    rows = [
        {
            "rank": row.rank,
            "user": row.user,
            "username": names[row.user],
            "matchpoints": row.matchpoints,
            "score": row.score,
            "rating": row.rating,
        }
        for row in standings_compute(tournament=tournament)
    ]
    return {
        "tournament": tournament.pk,
        "status": tournament.status,
        "rounds_counted": rounds,
        "results": rows,
    }


def met_of(*, tournament: Tournament) -> dict[int, set[int]]:
    """The users each player already sat with in this tournament (Swiss avoids repeating them)."""
    met: dict[int, set[int]] = defaultdict(set)
    for seats, bots in RoundTable.objects.filter(round__tournament=tournament).values_list("seats", "bots"):
        people = [user for user, bot in zip(seats, bots, strict=True) if not bot]
        for user in people:
            met[user].update(other for other in people if other != user)
    return met


def tournament_detail(*, tournament: Tournament, user: Any) -> dict:
    entries = Entry.objects.filter(tournament=tournament)
    return {
        **{
            field: getattr(tournament, field)
            for field in (
                "id",
                "name",
                "preset",
                "options",
                "format",
                "duplicate",
                "rounds",
                "deals_per_round",
                "starts_at",
                "max_players",
                "bots_fill",
                "rated",
                "status",
                "cancelled_reason",
                "current_round",
                "created_at",
                "started_at",
                "finished_at",
            )
        },
        "players": entries.count(),
        "entered": getattr(user, "is_authenticated", False) and entries.filter(user=user).exists(),
    }


def tournaments_list(*, status: str | None):
    queryset = Tournament.objects.annotate(players=Count("entries")).order_by("-created_at", "-id")
    return queryset.filter(status=status) if status else queryset
