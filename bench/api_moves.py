#!/usr/bin/env python
"""Server CPU per request of a game move, beside the cheapest requests, today against the baseline.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/baohuang_bench \\
        .venv/bin/python bench/api_moves.py --clients 4 --moves 150 --rounds 3

Starts two server sets on 127.0.0.1 against the same PostgreSQL database (migrated by this
checkout), with BENCH_ENDPOINTS=1:

* current: the production roles of this checkout, `web` (gunicorn gthread, config/gunicorn.py) and
  `events` (gunicorn with uvicorn workers, config/gunicorn_events.py), with their default worker
  counts (`--web-workers`, `--events-workers`). No proxy runs: the bench client sends each request
  to the role deploy/nginx.conf routes its path to (support.EVENT_PATHS);
* baseline: the single-server model at `--baseline` (support.BASELINE_COMMIT, extracted with
  `git archive` into the temporary directory), one uvicorn process serving every path through its
  lanes, as this bench ran it then; with `--baseline-roles`, the commit's own web and events roles
  started as today's are (for a baseline that has them, such as the previous main: the same serving
  model, so the difference is the code's). `--baseline none` leaves it out.

For each server set it seats five players at each of `--clients` one-deal tables (staff `setups`
with known seeds) and measures, from `--clients` threads each driving its own table:

* moves: POST games/{id}/actions with a random legal action (the bench replays each deal locally
  with the engine, same seed, so every request is a move);
* bare:  POST _bench/bare/{id}, the same locking transaction without the engine (games/bench.py);
* polls: GET games/{id}/events?after=<two events back>, a poll answered at once (events role);
* feed:  GET me/events?after=<one entry back>, the feed read answered at once (events role);
* me:    GET me, the cheapest authenticated request (web role).

The figure is the server's CPU time per request (utime + stime of every process of the set, from
/proc), round by round: the phases and the server sets alternate, so a slow stretch of a shared
host inflates one round of each, and the median of the rounds is printed with the rounds. Goals
(docs/scaling.md "Measured cost per request"): a move <= 4 ms, a poll <= 1.5 ms, and a move with the
feed read that prompted it <= 2.5 x a GET me. Wall-clock rates and latencies are printed too; on a
shared machine they also measure the other work. A finished deal's next table is set up before the
phase (not counted). `--phases moves --baseline none` measures one phase alone, to attach a profiler
(the server pids are printed first). Loopback only; every loop is bounded by --moves.
"""

import argparse
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path

import requests
from support import (  # bench/support.py (found beside this script)
    BASELINE_COMMIT,
    ROOT,
    Servers,
    baseline_migrations_unknown,
    baseline_tree,
    ensure_database,
    machine_speed_ms,
    percentile,
    start_baseline,
    start_current,
)

sys.path.insert(0, str(ROOT))

PHASES = ("bare", "moves", "polls", "feed", "me")
GOALS = {"moves": "<= 4", "polls": "<= 1.5"}


class Table:
    """One table of the bench: its game, the players' sessions and the local replica of the deal."""

    def __init__(
        self, servers: Servers, staff: requests.Session, sessions: list[requests.Session], preset, seed
    ):
        from games import engine

        self.engine = engine
        self.rules = engine.preset(preset)
        created = staff.post(
            servers.url("/tables", "POST"), json={"preset": preset, "deals": 1, "setups": [{"seed": seed}]}
        )
        created.raise_for_status()
        table = created.json()
        for seat, session in enumerate(sessions):
            session.post(
                servers.url(f"/tables/{table['id']}/join", "POST"), json={"code": table["code"], "seat": seat}
            ).raise_for_status()
        self.game = staff.get(servers.url(f"/tables/{table['id']}")).json()["current_game"]
        self.sessions = sessions
        self.state = engine.new_deal(self.rules, seed=seed, start_seat=0, context=None)
        self.version = 0
        self.rng = random.Random(seed)

    def over(self) -> bool:
        return self.state.phase in ("over", "void")

    def next_move(self) -> tuple[int, dict]:
        seat = self.engine.to_act(self.state)[0]
        legal = self.engine.legal_actions(self.state, seat)
        plays = [a for a in legal if a.type == "play"]
        action = self.rng.choice(plays) if plays and self.rng.random() < 0.8 else self.rng.choice(legal)
        return seat, action

    def apply(self, seat: int, action) -> None:
        self.state, _ = self.engine.apply_action(self.state, seat, action)
        self.version += 1


def run_clients(clients: int, work) -> tuple[list[float], float]:
    latencies: list[list[float]] = [[] for _ in range(clients)]
    barrier = threading.Barrier(clients + 1)
    errors: list[BaseException] = []

    def target(index: int) -> None:
        try:
            barrier.wait()
            work(index, latencies[index])
        except BaseException as exc:  # noqa: BLE001 - reported after the run
            errors.append(exc)

    threads = [threading.Thread(target=target, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    barrier.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    if errors:
        raise errors[0]
    return [x for per in latencies for x in per], elapsed


class Bench:
    """The phases against one server set, with its own players and tables."""

    def __init__(
        self, args, servers: Servers, staff: requests.Session, players: list[list[requests.Session]]
    ):
        self.args, self.servers, self.staff, self.players = args, servers, staff, players
        self.seeds = random.Random(f"{servers.name}{time.time()}")
        self.tables = [self.new_table(c) for c in range(args.clients)]
        # A deal's next table is set up before the phase, outside its CPU window: seating five
        # players is six requests that are not moves.
        self.spares: list[list[Table]] = [[] for _ in range(args.clients)]
        self.set_up_inside = [0] * args.clients
        self.requests = args.moves
        self.cpu: dict[str, list[float]] = {name: [] for name in PHASES}  # ms per request, by round
        self.latencies: dict[str, list[float]] = {name: [] for name in PHASES}
        self.elapsed: dict[str, float] = dict.fromkeys(PHASES, 0.0)

    def new_table(self, client: int) -> Table:
        return Table(
            self.servers, self.staff, self.players[client], self.args.preset, self.seeds.randrange(2**62)
        )

    def spares_fill(self) -> None:
        for client in range(self.args.clients):
            while len(self.spares[client]) < self.requests // 40 + 1:
                self.spares[client].append(self.new_table(client))

    def moves(self, client: int, out: list[float]) -> None:
        table = self.tables[client]
        for _ in range(self.requests):
            if table.over():
                if not self.spares[client]:
                    self.set_up_inside[client] += 1
                spare = self.spares[client].pop() if self.spares[client] else self.new_table(client)
                table = self.tables[client] = spare
            seat, action = table.next_move()
            payload = {"type": action.type, "expected_version": table.version}
            if action.cards:
                payload["cards"] = list(action.cards)
            if action.card is not None:
                payload["card"] = action.card
            url = self.servers.url(f"/games/{table.game}/actions", "POST")
            started = time.perf_counter()
            response = table.sessions[seat].post(url, json=payload)
            out.append(time.perf_counter() - started)
            if response.status_code != 200:
                raise RuntimeError(f"move refused: {response.status_code} {response.text[:300]}")
            table.apply(seat, action)

    def polls(self, client: int, out: list[float]) -> None:
        table = self.tables[client]
        session = table.sessions[0]
        url = self.servers.url(f"/games/{table.game}/events")
        # Ask from just before the last event this seat sees: the log may end in rows private to
        # other seats (a fresh deal's hands), which this seat's poll skips.
        visible = session.get(url).json()["events"]
        self.read_at_once(session, url, max(0, visible[-1]["seq"] - 2), out, "poll")

    def feed(self, client: int, out: list[float]) -> None:
        session = self.tables[client].sessions[0]
        url = self.servers.url("/me/events")
        last = session.get(url).json()["last_seq"]
        if not last:
            raise RuntimeError("feed read: the player's feed is empty (the warm-up's moves fill it)")
        self.read_at_once(session, url, last - 1, out, "feed read")

    def read_at_once(self, session, url: str, after: int, out: list[float], what: str) -> None:
        for _ in range(self.requests):
            started = time.perf_counter()
            response = session.get(url, params={"after": after})
            out.append(time.perf_counter() - started)
            if response.status_code != 200 or not response.json()["events"]:
                raise RuntimeError(f"{what} refused: {response.status_code} {response.text[:300]}")

    def me(self, client: int, out: list[float]) -> None:
        session = self.tables[client].sessions[0]
        url = self.servers.url("/me")
        for _ in range(self.requests):
            started = time.perf_counter()
            response = session.get(url)
            out.append(time.perf_counter() - started)
            if response.status_code != 200:
                raise RuntimeError(f"me refused: {response.status_code} {response.text[:300]}")

    def bare(self, client: int, out: list[float]) -> None:
        table = self.tables[client]
        session = table.sessions[0]
        url = self.servers.url(f"/_bench/bare/{table.game}", "POST")
        for _ in range(self.requests):
            started = time.perf_counter()
            response = session.post(url)
            out.append(time.perf_counter() - started)
            if response.status_code != 200:
                raise RuntimeError(f"bare refused: {response.status_code} {response.text[:300]}")

    def warm_up(self, phases: list[str]) -> None:
        # Imports, connections, caches; the moves first, so that the players' feeds have entries.
        self.requests = 20
        for name in ["moves", *phases]:
            run_clients(self.args.clients, getattr(self, name))
        self.requests = self.args.moves

    def measure(self, name: str) -> None:
        if name == "moves":
            self.spares_fill()
        before = self.servers.cpu()
        latencies, elapsed = run_clients(self.args.clients, getattr(self, name))
        used = self.servers.cpu() - before
        self.cpu[name].append(used / len(latencies) * 1e3)
        self.latencies[name] += latencies
        self.elapsed[name] += elapsed

    def median(self, name: str) -> float:
        return statistics.median(self.cpu[name]) if self.cpu[name] else float("nan")


def cell(bench: Bench | None, name: str) -> str:
    if bench is None or not bench.cpu[name]:
        return "-"
    rounds = " ".join(f"{x:.2f}" for x in bench.cpu[name])
    return f"{bench.median(name):5.2f} [{rounds}]"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=4, help="concurrent client threads, one table each")
    parser.add_argument("--moves", type=int, default=150, help="requests per client per measured phase")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every phase on every server set")
    parser.add_argument("--preset", default="weihai")
    parser.add_argument("--phases", default=",".join(PHASES), help="measured phases, comma-separated")
    parser.add_argument(
        "--baseline",
        default=BASELINE_COMMIT,
        help="commit of the single-server model measured beside ('none': not)",
    )
    parser.add_argument(
        "--baseline-roles",
        action="store_true",
        help="serve the baseline by its own web and events roles, as today's (a baseline that has them)",
    )
    parser.add_argument(
        "--web-workers", type=int, default=0, help="web processes (default: config/gunicorn.py)"
    )
    parser.add_argument(
        "--events-workers", type=int, default=0, help="events processes (default: its config)"
    )
    args = parser.parse_args()
    phases = [name for name in args.phases.split(",") if name]
    if unknown := set(phases) - set(PHASES):
        sys.exit(f"unknown phases {sorted(unknown)}; choose among {', '.join(PHASES)}")
    if not 1 <= args.clients <= 64 or not 1 <= args.moves <= 10_000 or not 1 <= args.rounds <= 20:
        sys.exit("--clients 1..64, --moves 1..10000, --rounds 1..20")

    database_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/baohuang_bench")
    if not database_url.startswith("postgres"):
        sys.exit("bench/api_moves.py measures PostgreSQL: set DATABASE_URL=postgres://...")
    ensure_database(database_url)
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/15")
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DJANGO_DEBUG": "0",
        "BENCH_ENDPOINTS": "1",
        "AUTH_THROTTLE_RATE": "100000/min",
        # As in production: the shared cache (token lookups, throttles), wake-ups and the broker on
        # Redis (REDIS_URL= measures without it). No worker consumes the deadline tasks.
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": os.environ.get("CELERY_BROKER_URL", redis_url or "redis://127.0.0.1:6379/15"),
    }
    os.environ.update(env)
    # One database for both server sets, migrated by this checkout (the baseline's tables are a
    # subset of its tables: a column added since is nullable or has a database default).
    import subprocess

    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True
    )

    import django

    django.setup()
    from accounts.models import User
    from accounts.services import token_create

    if args.baseline != "none" and (unknown := baseline_migrations_unknown(baseline_tree(args.baseline))):
        sys.exit(f"{args.baseline} needs migrations this checkout has not got: {', '.join(unknown)}")
    sets = [start_current(env, web_workers=args.web_workers, events_workers=args.events_workers)]
    if args.baseline != "none" and args.baseline_roles:
        tree = baseline_tree(args.baseline)
        roles = {"web_workers": args.web_workers, "events_workers": args.events_workers}
        sets.append(start_current(env, **roles, root=tree, name=f"baseline {args.baseline} (its roles)"))
    elif args.baseline != "none":
        sets.append(start_baseline(env, server="uvicorn", commit=args.baseline))
    try:
        for servers in sets:
            servers.wait_ready()
            print(f"{servers.name}: pids {[p.pid for p in servers.processes]}", file=sys.stderr, flush=True)
        stamp = f"{int(time.time())}{random.randrange(1000)}"

        def session_for(user) -> requests.Session:
            session = requests.Session()
            session.headers["Authorization"] = f"Bearer {token_create(user=user)}"
            return session

        staff = session_for(
            User.objects.create_user(username=f"bench-staff-{stamp}", password="x" * 12, is_staff=True)
        )
        benches = []
        for index, servers in enumerate(sets):
            players = [
                [
                    session_for(User.objects.create_user(username=f"bench-{stamp}-{index}-{c}-{s}"))
                    for s in range(5)
                ]
                for c in range(args.clients)
            ]
            bench = Bench(args, servers, staff, players)
            bench.warm_up(phases)
            benches.append(bench)

        load_before = Path("/proc/loadavg").read_text().split()[:3]
        speed_before = machine_speed_ms()
        for _ in range(args.rounds):
            for bench in benches:
                for name in phases:
                    print(f"{bench.servers.name}: phase {name}", file=sys.stderr, flush=True)
                    bench.measure(name)
        load_after = Path("/proc/loadavg").read_text().split()[:3]
        speed_after = machine_speed_ms()
        report(args, phases, benches, env)
        print(
            f"load average before {' '.join(load_before)}, after {' '.join(load_after)}; machine speed "
            f"(support.machine_speed_ms, lower is faster) {speed_before:.1f} ms before, {speed_after:.1f} ms "
            "after: a shared machine, compare the figures of one run with each other"
        )
    finally:
        for servers in sets:
            servers.stop()
        broker = env["CELERY_BROKER_URL"]
        if broker == redis_url and redis_url:
            # The deadline tasks of the bench's deals, which no worker will run; the database index
            # is the bench's own (REDIS_URL).
            import redis

            redis.Redis.from_url(broker).flushdb()


def report(args, phases: list[str], benches: list[Bench], env: dict) -> None:
    current = benches[0]
    baseline = benches[1] if len(benches) > 1 else None
    served = "its own web and events roles" if args.baseline_roles else "one uvicorn process"
    print(
        f"preset {args.preset}, {args.clients} clients, {args.moves} requests each per phase, {args.rounds} "
        f"rounds, Redis {'on' if env['REDIS_URL'] else 'off'}; current = web gthread + events roles "
        "(the client routes by path as deploy/nginx.conf does)"
        + (f", baseline = commit {args.baseline} on {served}" if baseline else "")
    )
    print("server CPU per request, ms: median of the rounds [the rounds]")
    print(f"{'phase':>6}  {'current':<32}{'baseline':<32}goal")
    for name in phases:
        print(f"{name:>6}  {cell(current, name):<32}{cell(baseline, name):<32}{GOALS.get(name, '')}")
    for bench in benches:
        for name in phases:
            latencies = bench.latencies[name]
            print(
                f"{bench.servers.name:>18} {name:>5}: {len(latencies) / bench.elapsed[name]:7.1f} req/s  "
                f"p50 {statistics.median(latencies) * 1e3:6.2f} ms  "
                f"p99 {percentile(latencies, 0.99) * 1e3:6.2f} ms"
            )
        if "moves" in phases and sum(bench.set_up_inside):
            print(
                f"{bench.servers.name}: tables set up inside the moves phase (counted in): "
                f"{sum(bench.set_up_inside)}"
            )

    def ratio(numerators: list[str], denominator: str, goal: str) -> None:
        if not set(numerators) | {denominator} <= set(phases):
            return
        figures = [
            f"{b.servers.name} {sum(b.median(n) for n in numerators) / b.median(denominator):.2f}"
            if b.median(denominator) > 0
            else f"{b.servers.name} n/a (no CPU tick in {denominator}: too few requests)"
            for b in benches
        ]
        print(f"CPU ratio ({' + '.join(numerators)}) / {denominator}: {', '.join(figures)}   goal {goal}")

    ratio(["moves"], "bare", "near 1: a move costs about a bare locking transaction")
    ratio(["moves", "feed"], "me", "<= 2.5")


if __name__ == "__main__":
    main()
