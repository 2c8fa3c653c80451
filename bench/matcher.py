"""The matcher's cost (matchmaking/matching.py) against the bare cost of seating the same tables.

For each size, N rated tickets of one preset (ratings close enough to match at once, bots off) are
queued and one `tickets_match()` run seats them; the baseline seats the same number of tables of N
fresh users directly (`table_create` + five `table_join`, one transaction per table: the writes any
seating needs, the first deal included). The difference is what matching adds: locking and reading
the tickets, planning, the ticket updates and the feed entries. Planning alone (pure Python, no
database) is timed on a larger in-memory pool.

    .venv/bin/python bench/matcher.py                 # sizes 50 and 250
    .venv/bin/python bench/matcher.py --sizes 100 500 --plan 20000

Needs PostgreSQL (MATCHER_BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/
baohuang_matcher_bench: a database of its own, created and migrated, its tables emptied per size).
No broker: tasks the first deals schedule go to Celery's in-memory transport.
"""

import argparse
import os
import random
import sys
import time
from datetime import timedelta
from pathlib import Path

from support import ensure_database  # bench/support.py (found beside this script)

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))

DATABASE_URL = os.environ.get(
    "MATCHER_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/baohuang_matcher_bench"
)
os.environ.update({"DATABASE_URL": DATABASE_URL, "DJANGO_SETTINGS_MODULE": "config.settings.test"})
os.environ.pop("REDIS_URL", None)


def empty_tables() -> None:
    from accounts.models import FeedCursor, FeedEvent, User
    from matchmaking.models import Table, Ticket

    Ticket.objects.all().delete()
    Table.objects.all().delete()
    FeedEvent.objects.all().delete()
    FeedCursor.objects.all().delete()
    User.objects.filter(username__startswith="mb-").delete()


def make_users(count: int, tag: str) -> list:
    from accounts.models import User

    users = [User(username=f"mb-{tag}-{i}", password="!") for i in range(count)]
    return User.objects.bulk_create(users)


def queue_tickets(users: list, rng: random.Random) -> None:
    from django.utils import timezone

    from matchmaking.models import Ticket

    now = timezone.now()
    Ticket.objects.bulk_create(
        Ticket(
            user=u,
            preset="weihai",
            options={},
            rated=True,
            bots=False,
            rating=rng.uniform(0, 4),
            last_polled_at=now,
        )
        for u in users
    )


def run_matcher(size: int, rng: random.Random) -> tuple[float, int]:
    from matchmaking import matching

    empty_tables()
    queue_tickets(make_users(size, "m"), rng)
    started = time.perf_counter()
    seated = matching.tickets_match()
    return time.perf_counter() - started, seated


def run_baseline(size: int) -> tuple[float, int]:
    from django.db import transaction

    from matchmaking import services

    empty_tables()
    users = make_users(size, "b")
    started = time.perf_counter()
    for start in range(0, size - size % 5, 5):
        with transaction.atomic():
            table = services.table_create(creator=users[start], preset="weihai", options={})
            for seat, user in enumerate(users[start : start + 5]):
                services.table_join(table_id=table.pk, user=user, seat=seat)
    return time.perf_counter() - started, size - size % 5


def time_planning(count: int, rng: random.Random) -> float:
    from django.utils import timezone

    from matchmaking import matching
    from matchmaking.models import Ticket

    now = timezone.now()
    pool = [
        Ticket(
            pk=i + 1,
            rating=rng.uniform(-10, 40),
            created_at=now - timedelta(seconds=rng.uniform(0, 30)),
            bots=True,
        )
        for i in range(count)
    ]
    started = time.perf_counter()
    groups = matching.plan_rated(pool, now)
    elapsed = time.perf_counter() - started
    print(f"planning alone: {count} tickets -> {len(groups)} tables in {elapsed * 1000:.1f} ms")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 250])
    parser.add_argument("--plan", type=int, default=5000, help="tickets in the in-memory planning pool")
    args = parser.parse_args()
    ensure_database(DATABASE_URL)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    rng = random.Random(1)
    # Warm-up (imports, caches, connections), not reported.
    run_matcher(10, rng)
    run_baseline(10)
    for size in args.sizes:
        matcher_s, seated = run_matcher(size, rng)
        baseline_s, baseline_seated = run_baseline(size)
        tables = seated // 5
        print(
            f"{size} tickets: matcher seated {seated} at {tables} tables in {matcher_s:.2f} s "
            f"({matcher_s / max(tables, 1) * 1000:.1f} ms/table); baseline seated {baseline_seated} in "
            f"{baseline_s:.2f} s ({baseline_s / max(baseline_seated // 5, 1) * 1000:.1f} ms/table); "
            f"ratio {matcher_s / baseline_s:.2f}"
        )
    time_planning(args.plan, rng)
    empty_tables()


if __name__ == "__main__":
    main()
