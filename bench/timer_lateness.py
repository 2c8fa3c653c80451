"""Turn-timer lateness on a real Celery worker, Redis and PostgreSQL (issue 5; goal: p99 < 100 ms).

Lateness of a timeout = when the trustee action it caused was committed and announced (the wake-up
"game {id} is at version v", published on commit, as a subscriber on loopback Redis receives it) minus
the deadline stored with the game. Also printed: when the timeout's first event row was written
(the task has fired, locked the row and is applying), and, in the same run and on the same worker, the
baseline: a bare Celery countdown task's start minus its ETA.

The load: --tables tables with 1-second deadlines run at once. A driver in this process plays the
"humans": nobody ever moves; it turns 托管 off again after a seat's first and second timeouts, so that
timeouts keep coming one prompt at a time. After a seat's third timeout:
  --scenario typical   the driver drops the table (deletes it) and opens a new one: only timeouts;
  --scenario autoplay  it leaves the seat on trustee, so each deal ends after about fifteen timeouts
                       with the worker auto-playing the whole rest of it (some 300 actions, in chunks
                       of MAX_AUTOPLAY_ACTIONS): the worst case, every table abandoned by all five.
Bounded: it stops after --timeouts timeouts and --probes probes, or after --seconds.

    .venv/bin/python bench/timer_lateness.py [--timeouts 240] [--tables 6] [--seconds 150] [--pool prefork]

Needs PostgreSQL (TIMER_BENCH_DATABASE_URL, default
postgres://postgres@127.0.0.1:5432/baohuang_timer_bench: a database of its own, created and migrated
if missing, and emptied) and Redis (REDIS_BENCH_URL, default redis://127.0.0.1:6379/14, flushed).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from support import ensure_database  # bench/support.py (found beside this script)

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))

DATABASE_URL = os.environ.get(
    "TIMER_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/baohuang_timer_bench"
)
REDIS = os.environ.get("REDIS_BENCH_URL", "redis://127.0.0.1:6379/14")
os.environ.update(
    {
        "DATABASE_URL": DATABASE_URL,
        "CELERY_BROKER_URL": REDIS,
        "REDIS_URL": REDIS,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
    }
)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def summary(name: str, values_ms: list[float]) -> str:
    if not values_ms:
        return f"{name}: no samples"
    return (
        f"{name}: n={len(values_ms)} median={statistics.median(values_ms):.1f} ms "
        f"p99={percentile(values_ms, 0.99):.1f} ms max={max(values_ms):.1f} ms min={min(values_ms):.1f} ms"
    )


def _listen(connection, stop) -> None:
    import orjson
    import redis

    from infra.wakeups import channel_prefix_for  # this run's database: not another run's games

    pubsub = redis.Redis.from_url(REDIS).pubsub()
    pubsub.psubscribe(channel_prefix_for(REDIS) + "game:*")
    connection.send("subscribed")
    seen = []
    while not stop.is_set():
        message = pubsub.get_message(ignore_subscribe_messages=True, timeout=0.2)
        if message is not None:
            data = message["data"]
            # The version alone, or (with the rows the commit appended) a JSON object that has it.
            version = orjson.loads(data)["version"] if data.startswith(b"{") else int(data)
            seen.append((int(message["channel"].rsplit(b":", 1)[1]), version, time.time()))
    connection.send(seen)


class Wakeups:
    """Every 'game {id} is at version v' published on commit, with the time it arrived; received in a
    process of its own, so that the driver's work does not delay the clock reading."""

    def __init__(self):
        self.parent, child = multiprocessing.Pipe()
        self.stop_event = multiprocessing.Event()
        self.process = multiprocessing.Process(target=_listen, args=(child, self.stop_event), daemon=True)
        self.seen: dict[int, list[tuple[int, float]]] = {}

    def start(self) -> None:
        self.process.start()
        assert self.parent.recv() == "subscribed"

    def stop(self) -> None:
        self.stop_event.set()
        for game_id, version, arrived in self.parent.recv():
            self.seen.setdefault(game_id, []).append((version, arrived))
        self.process.join(timeout=5)

    def first_after(self, game_id: int, version: int) -> float | None:
        times = [t for v, t in self.seen.get(game_id, []) if v > version]
        return min(times) if times else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--timeouts", type=int, default=240)
    parser.add_argument("--tables", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=150)
    parser.add_argument("--probes", type=int, default=240)
    parser.add_argument("--pool", default="prefork")
    parser.add_argument("--scenario", choices=("typical", "autoplay"), default="typical")
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()

    ensure_database(DATABASE_URL)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    # A clean slate: running games left by an earlier run would keep the sweep busy.
    call_command("flush", interactive=False, verbosity=0)

    import redis
    from django.db import IntegrityError

    from accounts.models import User
    from bench.celery_probe import PROBE_KEY, probe
    from games import services
    from games.models import Event, Game, GameStatus
    from infra.api.errors import ApiError, ErrorCode
    from matchmaking import services as table_services
    from matchmaking.models import Table
    from tests.games.worker import Worker, database_url, flush_redis

    flush_redis(REDIS)
    workdir = Path(tempfile.mkdtemp(prefix="timer-bench-"))
    worker = Worker(
        broker=REDIS,
        database=database_url(connection.settings_dict),
        workdir=workdir,
        concurrency=args.concurrency,
        pool=args.pool,
        include="bench.celery_probe",
        env={
            "REDIS_URL": REDIS,
            "GAMES_SWEEP_SECONDS": "2",
            "GAMES_SWEEP_GRACE": "2",
            # As in production: a worker keeps its database connections between tasks.
            "DB_CONN_MAX_AGE": "60",
        },
    )
    wakeups = Wakeups()
    wakeups.start()
    worker.start()
    run_tag = f"b{int(time.time())}"
    started_at = time.time()
    print(f"worker: pool={args.pool} concurrency={args.concurrency}; log {worker.log_path}", flush=True)

    users: dict[int, list] = {}
    counter = iter(range(10**9))

    def new_table() -> int:
        players = [
            User.objects.create_user(username=f"{run_tag}-{next(counter)}", password=None) for _ in range(5)
        ]
        creator = players[0]
        table = table_services.table_create(
            creator=creator, preset="weihai", options={}, play_seconds=1, prompt_seconds=1, deals=0
        )
        for seat, user in enumerate(players):
            table_services.table_join(table_id=table.pk, user=user, code=table.code, seat=seat)
        users[table.pk] = players
        return table.pk

    tables = [new_table() for _ in range(args.tables)]
    dropped: list[tuple] = []  # timeout rows of dropped tables, kept for the figures
    rng = random.Random(1)
    probe_count = 0
    next_probe = time.time()
    try:
        while time.time() - started_at < args.seconds:
            timeouts = (
                len(dropped) + Event.objects.filter(type="timeout", game__table_id__in=users.keys()).count()
            )
            if timeouts >= args.timeouts and probe_count >= args.probes:
                break
            # Baseline probes, spread over the run so that they share its load.
            while probe_count < args.probes and time.time() >= next_probe:
                eta = time.time() + rng.uniform(0.5, 1.5)
                probe.apply_async(kwargs={"eta": eta}, eta=datetime.fromtimestamp(eta, tz=UTC))
                probe_count += 1
                next_probe += 0.1
            running = {
                game.table_id: game
                for game in Game.objects.filter(table_id__in=tables, status=GameStatus.RUNNING).only(
                    "id", "table_id", "version", "trustee", "trustee_entries", "seat_user_ids"
                )
            }
            for index, table_id in enumerate(tables):
                game = running.get(table_id)
                if game is None:
                    if Table.objects.filter(pk=table_id).exclude(status="playing").exists():
                        tables[index] = new_table()
                    continue
                players = users[table_id]
                if args.scenario == "typical" and max(game.trustee_entries) >= 3:
                    dropped.extend(
                        Event.objects.filter(game__table_id=table_id, type="timeout").values_list(
                            "game_id", "version", "data", "created_at"
                        )
                    )
                    try:
                        Table.objects.filter(pk=table_id).delete()
                    except IntegrityError:
                        # A timer of this deal wrote an event meanwhile: delete it next round.
                        dropped[:] = [row for row in dropped if row[0] != game.pk]
                        continue
                    tables[index] = new_table()
                    continue
                to_release = [
                    seat
                    for seat in range(5)
                    if game.trustee[seat] and game.trustee_entries[seat] < 3 and game.seat_user_ids[seat]
                ]
                for seat in to_release:
                    try:
                        services.game_trustee_set(game_id=game.pk, user=players[seat], on=False)
                    except ApiError as exc:
                        if exc.code != str(ErrorCode.GAME_OVER):
                            raise
                        break  # the deal ended since it was read (its last seats' timeouts)
            time.sleep(0.05)
        time.sleep(2.5)  # let the last timers and probes land
    finally:
        worker.kill()
        wakeups.stop()

    committed, written = [], []
    rows = dropped + list(
        Event.objects.filter(type="timeout", game__table_id__in=users.keys()).values_list(
            "game_id", "version", "data", "created_at"
        )
    )
    missing = 0
    for game_id, version, data, created_at in rows:
        deadline = datetime.fromisoformat(data["deadline"].replace("Z", "+00:00")).timestamp()
        written.append((created_at.timestamp() - deadline) * 1000)
        arrived = wakeups.first_after(game_id, version)
        if arrived is None:
            missing += 1
        else:
            committed.append((arrived - deadline) * 1000)
    probes = [json.loads(item) for item in redis.Redis.from_url(REDIS).lrange(PROBE_KEY, 0, -1)]
    baseline = [(started - eta) * 1000 for eta, started in probes]

    print(
        f"run: {time.time() - started_at:.0f} s, scenario {args.scenario}, {len(tables)} tables at a time, "
        f"deadlines 1 s, worker pool={args.pool} concurrency={args.concurrency}, "
        f"load average at the end {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    print(summary("timeout -> trustee action committed (wake-up received)", committed))
    print(summary("timeout -> first event row written", written))
    print(summary("baseline: bare countdown task start - ETA", baseline))
    if missing:
        print(f"({missing} timeouts without a wake-up seen)")
    sweeps = sum(1 for line in worker.log_path.read_text(errors="replace").splitlines() if "sweep" in line)
    print(f"worker log lines about the sweep: {sweeps}")


if __name__ == "__main__":
    main()
