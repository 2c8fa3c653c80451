#!/usr/bin/env python
"""What one move and one poll cost each tier: SQL statements, WAL bytes, Redis commands, web CPU.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bh_capacity .venv/bin/python bench/move_costs.py

In one process (Django's test client through the whole middleware and DRF stack, no HTTP server):
seats five users at one-deal tables (staff `setups`, known seeds), replays each deal locally with
the engine so every request is a legal move, and counts per request:

* SQL statements (a connection execute wrapper) and the WAL they wrote (pg_current_wal_insert_lsn
  before and after, read on a second connection). WAL is cluster-wide: other databases of the same
  server write too, so the minimum and the median are printed; the minimum is the request's own.
* Redis commands (every `execute_command` and pipeline of redis-py: wake-up publishes, the deadline
  task sent to the broker, the cache);
* the CPU time of this process (thread time, so other processes on the machine do not count).

Requests measured: a move (`POST games/{id}/actions`), a poll answered with the newest events
(`GET games/{id}/events?after=..`), a feed read (`GET me/events?after=..`) and a view (`GET games/{id}`).
The baseline in the same run is an authenticated `GET me`, the cheapest request through the same stack.
Loopback only; bounded by --moves.
"""

import argparse
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

# bench/support.py (found beside this script)
from support import django_in_process, in_process_urls, one_deal_table, random_move

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--preset", default="weihai")
    parser.add_argument("--redis-db", type=int, default=12)
    parser.add_argument(
        "--profile", choices=["move", "poll", "feed", "view"], help="also print cProfile's top functions"
    )
    args = parser.parse_args()
    database_url, redis_url = in_process_urls(script="move_costs.py", redis_db=args.redis_db)
    django_in_process(database_url=database_url, redis_url=redis_url)

    import psycopg
    import redis
    from django.db import connection
    from django.test import Client

    from accounts.models import User
    from accounts.services import token_create
    from games import engine

    counts = {"sql": 0, "redis": 0}

    def count_sql(execute, sql, params, many, context):
        counts["sql"] += 1
        return execute(sql, params, many, context)

    original_execute = redis.Redis.execute_command
    original_pipeline = redis.client.Pipeline.execute

    def counted_execute(self, *a, **k):
        counts["redis"] += 1
        return original_execute(self, *a, **k)

    def counted_pipeline(self, *a, **k):
        counts["redis"] += len(self.command_stack)
        return original_pipeline(self, *a, **k)

    redis.Redis.execute_command = counted_execute
    redis.client.Pipeline.execute = counted_pipeline
    wal = psycopg.connect(database_url, autocommit=True)

    def wal_lsn() -> int:
        text = wal.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()[0]
        high, low = text.split("/")
        return (int(high, 16) << 32) + int(low, 16)

    samples: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))

    import cProfile
    import pstats

    # Thread CPU time, so waiting on PostgreSQL and other processes on the machine do not count.
    profiler = cProfile.Profile(time.thread_time)

    def measured(name: str, call):
        if name == args.profile:
            profiler.enable()
            try:
                return measure(name, call)
            finally:
                profiler.disable()
        return measure(name, call)

    def measure(name: str, call):
        counts["sql"] = counts["redis"] = 0
        lsn = wal_lsn()
        cpu = time.thread_time()
        with connection.execute_wrapper(count_sql):
            response = call()
        cpu = time.thread_time() - cpu
        samples[name]["cpu_ms"].append(cpu * 1e3)
        samples[name]["wal"].append(wal_lsn() - lsn)
        samples[name]["sql"].append(counts["sql"])
        samples[name]["redis"].append(counts["redis"])
        if response.status_code != 200:
            raise RuntimeError(f"{name}: {response.status_code} {response.content[:300]}")
        return response

    stamp = f"{int(time.time())}{random.randrange(1000)}"

    def client_for(user) -> Client:
        return Client(headers={"authorization": f"Bearer {token_create(user=user)}"})

    staff = client_for(
        User.objects.create_user(username=f"cost-staff-{stamp}", password="x" * 12, is_staff=True)
    )
    players = [client_for(User.objects.create_user(username=f"cost-{stamp}-{s}")) for s in range(5)]
    rng = random.Random(stamp)

    def new_table():
        return (*one_deal_table(staff, players, rng, args.preset), 0)

    game, state, version = new_table()
    # Each follower reads his own feed from his own cursor (a cursor past a feed's end is refused).
    feed_after = dict.fromkeys(range(5), 0)
    done = 0
    warmup = 20
    while done < args.moves + warmup:
        if state.phase in ("over", "void"):
            game, state, version = new_table()
        seat, action, payload = random_move(state, rng)
        payload["expected_version"] = version
        player = players[seat]

        def post(player=player, payload=payload, game=game):
            return player.post(f"/api/v1/games/{game}/actions", payload, content_type="application/json")

        name = "move" if done >= warmup else "warm-up"
        measured(name, post)
        state, _ = engine.apply_action(state, seat, action)
        version += 1
        follower_seat = (seat + 1) % 5
        follower = players[follower_seat]
        last_seq = follower.get(f"/api/v1/games/{game}/events").json()["last_seq"]
        measured(
            "poll" if done >= warmup else "warm-up",
            lambda f=follower, s=last_seq, g=game: f.get(
                f"/api/v1/games/{g}/events", {"after": max(0, s - 2)}
            ),
        )
        feed = measured(
            "feed" if done >= warmup else "warm-up",
            lambda f=follower, a=feed_after[follower_seat]: f.get("/api/v1/me/events", {"after": a}),
        )
        feed_after[follower_seat] = 0 if done % 20 == 0 else feed.json()["last_seq"] - 1
        measured(
            "view" if done >= warmup else "warm-up", lambda f=follower, g=game: f.get(f"/api/v1/games/{g}")
        )
        measured("me (baseline)" if done >= warmup else "warm-up", lambda f=follower: f.get("/api/v1/me"))
        done += 1

    redis.Redis.from_url(redis_url).flushdb()
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(
        f"preset {args.preset}, {args.moves} moves (each followed by a poll, a feed read, a view, a GET me)"
    )
    print(
        f"{'request':>14}  {'CPU ms p50 / min':>17}  {'SQL stmts':>9}  {'WAL bytes min / p50':>20}"
        f"  {'Redis cmds':>10}"
    )
    for name in ("move", "poll", "feed", "view", "me (baseline)"):
        s = samples[name]
        print(
            f"{name:>14}  {statistics.median(s['cpu_ms']):8.2f} / {min(s['cpu_ms']):6.2f}  "
            f"{statistics.mean(s['sql']):9.1f}  {min(s['wal']):9.0f} / {statistics.median(s['wal']):8.0f}  "
            f"{statistics.mean(s['redis']):10.1f}"
        )
    if args.profile:
        # Cumulative CPU time per function over the profiled requests (cProfile's own overhead included,
        # so compare shares, not the absolute figures).
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(45)
    print(
        f"load average {load} (a shared 2-core machine: CPU is this thread's own time; WAL is cluster-wide)"
    )


if __name__ == "__main__":
    main()
