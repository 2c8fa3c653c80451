#!/usr/bin/env python
"""The move that ends a deal: what its transaction holds, with the table's steps after the commit
(today) beside the same steps inside the move's transaction (the baseline: how the deal's end ran
before it became a step of its own), in the same run.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bh_capacity .venv/bin/python bench/deal_end.py --deals 20

In one process, through the services (no HTTP): seats five users at tables of `--deals` known seeds
(staff `setups`, pause 0 so the next deal can be dealt at once), plays each deal with the engine's
trustee action up to its last move, and measures that last move, alternating the two ways deal by
deal, so a slow stretch of a shared host hurts both:

* after-commit: `game_action_apply` alone (the game row locked, the player waiting), then the table's
  steps (`table_deal_end`, `table_deal_next`) as the worker runs them, measured apart;
* same transaction: `game_action_apply`, `table_deal_end` and `table_deal_next` in one transaction,
  as a move that re-entered the table's flow held them.

Printed per way: the median wall time of the move's transaction (ms, what the player waits for and
how long the game row stays locked), its SQL statements, and the table's steps' time where they are
apart. Loopback only; bounded by --deals.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deals", type=int, default=20, help="deals played, half each way")
    parser.add_argument("--preset", default="weihai")
    args = parser.parse_args()
    database_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bh_capacity")
    if not database_url.startswith("postgres"):
        sys.exit("bench/deal_end.py measures PostgreSQL: set DATABASE_URL=postgres://...")
    os.environ.update(
        {
            "DATABASE_URL": database_url,
            "DJANGO_SETTINGS_MODULE": "config.settings.local",
            "DJANGO_DEBUG": "0",
            # Tasks sent after a commit go nowhere: the bench runs the table's steps itself.
            "CELERY_BROKER_URL": "memory://localhost/",
            "LOG_LEVEL": "WARNING",
        }
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", "--noinput", verbosity=0)

    from django.db import connection, transaction

    from accounts.models import User
    from games import engine
    from games import selectors as game_selectors
    from games import services as game_services
    from games.models import Game, GameStatus
    from matchmaking import services

    statements = {"count": 0}

    def count_sql(execute, sql, params, many, context):
        statements["count"] += 1
        return execute(sql, params, many, context)

    stamp = f"{int(time.time())}"
    staff = User.objects.create_user(username=f"dealend-staff-{stamp}", password="x" * 12, is_staff=True)
    players = [User.objects.create_user(username=f"dealend-{stamp}-{s}") for s in range(5)]
    rows: dict[str, dict[str, list[float]]] = {
        way: {"move_ms": [], "sql": [], "steps_ms": []} for way in ("after-commit", "same transaction")
    }

    for index in range(args.deals):
        way = "after-commit" if index % 2 == 0 else "same transaction"
        table = services.table_create(
            creator=staff, preset=args.preset, options={}, deals=0, setups=[{"seed": 1000 + index}],
            deal_pause_seconds=0,
        )  # fmt: skip
        for seat, user in enumerate(players):
            services.table_join(table_id=table.pk, user=user, seat=seat)
        game = Game.objects.get(table=table, status=GameStatus.RUNNING)
        while True:
            state = game_selectors.game_state(game=Game.objects.get(pk=game.pk))
            if state.phase in ("over", "void"):
                break
            seat = engine.to_act(state)[0]
            action = engine.trustee_action(state, seat)
            after, _ = engine.apply_action(state, seat, action)
            move = {"game_id": game.pk, "user": players[seat], "action": engine.action_to_dict(action)}
            if after.phase not in ("over", "void"):
                game_services.game_action_apply(**move)
                continue
            statements["count"] = 0
            started = time.perf_counter()
            with connection.execute_wrapper(count_sql):
                if way == "after-commit":
                    game_services.game_action_apply(**move)
                else:
                    with transaction.atomic():
                        game_services.game_action_apply(**move)
                        services.table_deal_end(game_id=game.pk)
                        services.table_deal_next(table_id=table.pk)
            rows[way]["move_ms"].append((time.perf_counter() - started) * 1e3)
            rows[way]["sql"].append(statements["count"])
            if way == "after-commit":
                started = time.perf_counter()
                services.table_deal_end(game_id=game.pk)
                services.table_deal_next(table_id=table.pk)
                rows[way]["steps_ms"].append((time.perf_counter() - started) * 1e3)
            break
        assert Game.objects.filter(table=table, status=GameStatus.RUNNING).exclude(pk=game.pk).exists(), (
            "the next deal was not dealt"
        )

    print(f"deal_end.py: {args.deals} deals of {args.preset}, the move that ends each (median of each way)")
    print(f"{'way':<18} {'deals':>5} {'move ms':>9} {'SQL':>5} {'table steps ms':>15}")
    for way, figures in rows.items():
        steps = (
            f"{statistics.median(figures['steps_ms']):15.2f}"
            if figures["steps_ms"]
            else f"{'(in the move)':>15}"
        )
        print(
            f"{way:<18} {len(figures['move_ms']):>5} {statistics.median(figures['move_ms']):9.2f} "
            f"{statistics.median(figures['sql']):5.0f} {steps}"
        )


if __name__ == "__main__":
    main()
