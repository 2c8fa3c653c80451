"""A large duplicate Swiss tournament (docs/tournaments.md) against plain tables, in one process.

N players (accounts the server plays as bots: an all-bot event; entered directly, as `join` would)
play a duplicate Swiss tournament of R rounds of B boards at N/5 tables. For each round it prints the
time to seat it (the step: pairing, N/5 tables, their first deals), the time to play it (every deal
driven through games.services.game_bots_act, as the worker's bot task does) and this process's CPU
per deal (the worker's share; the database's CPU is not counted). The baseline, in the same run:
plain tables of five bots (`table_create` + five `table_join`, as quick match seats them) playing
B deals each, CPU per deal measured the same way. At the end the standings are recomputed from the
deals' final views (tournaments.scoring) and compared with the served ones; a difference exits 1.

    nice -n 19 .venv/bin/python bench/tournament.py                      # 1,000 players, 2 x 2, 40 tables
    .venv/bin/python bench/tournament.py --players 10 --rounds 1 --boards 1 --baseline-tables 1

Needs PostgreSQL (TOURNAMENT_BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/
baohuang_tournament_bench: a database of its own, created and migrated, emptied at the start).
No broker: the tasks the deals schedule go to Celery's in-memory transport.
"""

import argparse
import os
import sys
import time
from pathlib import Path

from support import ensure_database  # bench/support.py (found beside this script)

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))

DATABASE_URL = os.environ.get(
    "TOURNAMENT_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/baohuang_tournament_bench"
)
os.environ.update({"DATABASE_URL": DATABASE_URL, "DJANGO_SETTINGS_MODULE": "config.settings.test"})
os.environ.pop("REDIS_URL", None)
os.environ.pop("CELERY_BROKER_URL", None)


def empty_tables() -> None:
    from accounts.models import FeedCursor, FeedEvent, User
    from matchmaking.models import Table
    from tournaments.models import Tournament

    Tournament.objects.all().delete()
    Table.objects.all().delete()
    FeedEvent.objects.all().delete()
    FeedCursor.objects.all().delete()
    User.objects.filter(username__startswith="tb-").delete()


def make_bots(count: int, tag: str) -> list:
    from accounts.models import User

    return User.objects.bulk_create(
        User(username=f"tb-{tag}-{i}", password="!", is_bot=True) for i in range(count)
    )


def play_tables(table_ids: list[int]) -> int:
    """Drive every deal of these tables to the tables' close, bots acting as their task does; returns
    the deals played."""
    from django.utils import timezone

    from games import services
    from games.models import Game, GameStatus
    from matchmaking import services as table_services
    from matchmaking.models import Table

    deals = 0
    running = set(table_ids)
    while running:
        games = list(
            Game.objects.filter(table_id__in=running, status=GameStatus.RUNNING).values_list("pk", "table_id")
        )
        if not games:
            break
        running = set()
        for game_id, table_id in games:
            for _ in range(5000):
                version, status = Game.objects.filter(pk=game_id).values_list("version", "status").get()
                if status != GameStatus.RUNNING:
                    break
                if not services.game_bots_act(game_id=game_id, version=version):
                    raise SystemExit(f"game {game_id}: no bot prompted at version {version}")
            # The table's steps after the deal, as the worker runs them (docs/architecture.md "The end
            # of a deal"), the pause between deals skipped: no bot reads a result.
            table_services.table_deal_end(game_id=game_id)
            Table.objects.filter(pk=table_id, next_deal_at__isnull=False).update(next_deal_at=timezone.now())
            table_services.table_deal_next(table_id=table_id)
            deals += 1
            running.add(table_id)
    return deals


def run_baseline(tables: int, boards: int) -> tuple[float, int]:
    from django.db import transaction

    from matchmaking import services

    staff = make_bots(1, "staff")[0]
    bots = make_bots(5 * tables, "base")
    ids = []
    for start in range(0, 5 * tables, 5):
        with transaction.atomic():
            table = services.table_create(creator=staff, preset="weihai", options={}, deals=boards)
            for seat, user in enumerate(bots[start : start + 5]):
                services.table_join(table_id=table.pk, user=user, seat=seat)
        ids.append(table.pk)
    cpu = time.process_time()
    deals = play_tables(ids)
    return (time.process_time() - cpu) / max(deals, 1), deals


def run_tournament(players: int, rounds: int, boards: int) -> tuple[int, list[str]]:
    from accounts.models import User
    from tournaments import services, tasks
    from tournaments.models import Entry, Round, Tournament

    staff = User.objects.create(username="tb-staff-t", is_staff=True)
    tournament = Tournament.objects.create(
        name="bench",
        created_by=staff,
        preset="weihai",
        format="swiss",
        duplicate=True,
        rounds=rounds,
        deals_per_round=boards,
        max_players=players,
        rated=False,
    )
    Entry.objects.bulk_create(Entry(tournament=tournament, user=user) for user in make_bots(players, "p"))
    lines = []
    for number in range(1, rounds + 1):
        started = time.perf_counter()
        if number == 1:
            services.tournament_start(tournament_id=tournament.pk)
        else:
            tasks.tournaments_sweep()
        seated = time.perf_counter() - started
        round = Round.objects.get(tournament=tournament, number=number)
        table_ids = list(round.tables.values_list("table_id", flat=True))
        wall, cpu = time.perf_counter(), time.process_time()
        deals = play_tables(table_ids)
        played, cpu = time.perf_counter() - wall, time.process_time() - cpu
        lines.append(
            f"round {number}: {len(table_ids)} tables, seated in {seated:.2f} s, {deals} deals played in "
            f"{played:.1f} s, worker CPU {1000 * cpu / max(deals, 1):.1f} ms/deal"
        )
    tasks.tournaments_sweep()
    return tournament.pk, lines


def standings_check(tournament_id: int) -> tuple[bool, int]:
    """Standings recomputed from the final views (what a deal's players read) against the served ones."""
    from games import selectors as game_selectors
    from tournaments import scoring, selectors
    from tournaments.models import Round, Tournament

    tournament = Tournament.objects.get(pk=tournament_id)
    results = []
    for round in Round.objects.filter(tournament=tournament):
        for row in round.tables.all():
            holders = tuple(None if bot else user for user, bot in zip(row.seats, row.bots, strict=True))
            for game in game_selectors.games_of_table(table_id=row.table_id):
                final = game_selectors.game_final_view(game=game)
                scores = (0,) * 5 if final["void"] or game.unscored else tuple(final["scores"])
                results.append(scoring.BoardResult(round.number, game.number, row.number, scores, holders))
    points, score = scoring.totals(results, duplicate=True)
    served = selectors.standings_detail(tournament=tournament)["results"]
    same = all(
        (row["matchpoints"], row["score"]) == (points.get(row["user"], 0), score.get(row["user"], 0))
        for row in served
    )
    return same and tournament.status == "finished", len(served)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--boards", type=int, default=2)
    parser.add_argument("--baseline-tables", type=int, default=40)
    args = parser.parse_args()
    ensure_database(DATABASE_URL)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    empty_tables()
    print(f"duplicate Swiss, {args.players} players (bots), {args.rounds} rounds x {args.boards} boards")
    baseline_cpu, baseline_deals = run_baseline(args.baseline_tables, args.boards)
    tournament_id, lines = run_tournament(args.players, args.rounds, args.boards)
    for line in lines:
        print(line)
    print(f"baseline: plain tables, {baseline_deals} deals, worker CPU {1000 * baseline_cpu:.1f} ms/deal")
    same, ranked = standings_check(tournament_id)
    print(f"standings recomputed from the final views: {'equal' if same else 'DIFFERENT'} ({ranked} ranked)")
    empty_tables()
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
