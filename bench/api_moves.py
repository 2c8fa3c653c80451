#!/usr/bin/env python
"""Moves per second over HTTP: real game moves against a bare locking transaction, in one run.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/baohuang_bench .venv/bin/python bench/api_moves.py

Starts uvicorn on 127.0.0.1 (a free port) against PostgreSQL with BENCH_ENDPOINTS=1, seats five
players at each of several one-deal tables (staff `setups` with known seeds), and then, from
`--clients` threads, each driving its own table:

* moves: POST /api/v1/games/{id}/actions with a random legal action. The bench replays each deal
  locally with the engine (same seed), so every request is a move and no GET is needed;
* bare:  POST /api/v1/_bench/bare/{id}, the same transaction without the engine (games/bench.py):
  lock the game row, append an event row, save the game.

* polls: GET /api/v1/games/{id}/events?after=<two events back>, a poll answered at once with the
  newest events (what a client does after a wake-up).

It prints requests/s and p50/p99 latency of each and the ratio moves/bare (goal: >= 0.75), and the
server's CPU time per request of each phase (utime + stime of the uvicorn process from /proc; goals:
a move <= 4 ms, a poll <= 1.5 ms), over the whole run and, with `--rounds` above 1, round by round
(the phases alternate, so a slow stretch of a shared host shows as one slow round of each phase) with
the median round. On a shared machine the CPU figures are the ones to compare: the wall-clock rates
also measure the other work. Loopback only; every loop is bounded by --moves.
A finished deal's next table is set up before the phase (not counted as moves); `--phases moves`
measures one phase alone, to attach a profiler to the server (its pid is printed first).
"""

import argparse
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests
from support import (  # bench/support.py (found beside this script)
    ensure_database,
    free_port,
    machine_speed_ms,
    percentile,
)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) the process has used, from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Table:
    """One table of the bench: its game, the players' sessions and the local replica of the deal."""

    def __init__(
        self, base: str, staff: requests.Session, sessions: list[requests.Session], preset: str, seed: int
    ):
        from games import engine

        self.engine = engine
        self.rules = engine.preset(preset)
        created = staff.post(
            f"{base}/tables", json={"preset": preset, "deals": 1, "setups": [{"seed": seed}]}
        )
        created.raise_for_status()
        table = created.json()
        for seat, session in enumerate(sessions):
            session.post(
                f"{base}/tables/{table['id']}/join", json={"code": table["code"], "seat": seat}
            ).raise_for_status()
        self.game = staff.get(f"{base}/tables/{table['id']}").json()["current_game"]
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


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=4, help="concurrent client threads, one table each")
    parser.add_argument("--moves", type=int, default=400, help="requests per client per measured phase")
    parser.add_argument("--rounds", type=int, default=2, help="bare/moves rounds, alternating")
    parser.add_argument("--preset", default="weihai")
    parser.add_argument(
        "--phases",
        default="bare,moves,polls",
        help="measured phases, comma-separated (one alone: to profile it, e.g. py-spy on the server)",
    )
    args = parser.parse_args()

    database_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/baohuang_bench")
    if not database_url.startswith("postgres"):
        sys.exit("bench/api_moves.py measures PostgreSQL: set DATABASE_URL=postgres://...")
    ensure_database(database_url)
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DJANGO_DEBUG": "0",
        "BENCH_ENDPOINTS": "1",
        "AUTH_THROTTLE_RATE": "100000/min",
        # Deadline tasks go to a broker as in production; without a worker nothing consumes them.
        "CELERY_BROKER_URL": os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15"),
        # As in production: the shared cache (token lookups, throttles) and wake-ups on Redis.
        # REDIS_URL= (empty) measures without it.
        "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/15"),
    }
    os.environ.update(env)
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)

    import django

    django.setup()
    from accounts.models import User
    from accounts.services import token_create

    port = free_port()
    server = subprocess.Popen(
        [
            python,
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-access-log",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    print(f"server pid {server.pid}", file=sys.stderr, flush=True)
    base = f"http://127.0.0.1:{port}/api/v1"
    try:
        for _ in range(100):
            try:
                requests.get(f"http://127.0.0.1:{port}/api/schema/", timeout=5)
                break
            except requests.ConnectionError:
                time.sleep(0.1)
        stamp = f"{int(time.time())}{random.randrange(1000)}"

        def session_for(user) -> requests.Session:
            session = requests.Session()
            session.headers["Authorization"] = f"Bearer {token_create(user=user)}"
            return session

        staff_user = User.objects.create_user(
            username=f"bench-staff-{stamp}", password="x" * 12, is_staff=True
        )
        staff = session_for(staff_user)
        players = [
            [session_for(User.objects.create_user(username=f"bench-{stamp}-{c}-{s}")) for s in range(5)]
            for c in range(args.clients)
        ]
        seeds = random.Random(stamp)

        def new_table(client: int) -> Table:
            return Table(base, staff, players[client], args.preset, seeds.randrange(2**62))

        tables = [new_table(c) for c in range(args.clients)]
        # A deal's next table is set up before the phase, outside its CPU window: seating five
        # players is six requests that are not moves (8 % of the phase's CPU when counted in).
        spares: list[list[Table]] = [[] for _ in range(args.clients)]
        set_up_inside = [0] * args.clients

        def spares_fill() -> None:
            for client in range(args.clients):
                while len(spares[client]) < args.moves // 40 + 1:
                    spares[client].append(new_table(client))

        def moves(client: int, out: list[float]) -> None:
            table = tables[client]
            for _ in range(args.moves):
                if table.over():
                    if not spares[client]:
                        set_up_inside[client] += 1
                    table = tables[client] = spares[client].pop() if spares[client] else new_table(client)
                seat, action = table.next_move()
                payload = {"type": action.type, "expected_version": table.version}
                if action.cards:
                    payload["cards"] = list(action.cards)
                if action.card is not None:
                    payload["card"] = action.card
                started = time.perf_counter()
                response = table.sessions[seat].post(f"{base}/games/{table.game}/actions", json=payload)
                out.append(time.perf_counter() - started)
                if response.status_code != 200:
                    raise RuntimeError(f"move refused: {response.status_code} {response.text[:300]}")
                table.apply(seat, action)

        def polls(client: int, out: list[float]) -> None:
            table = tables[client]
            session = table.sessions[0]
            url = f"{base}/games/{table.game}/events"
            # Ask from just before the last event this seat sees: the log may end in rows
            # private to other seats (a fresh deal's hands), which this seat's poll skips.
            visible = session.get(url).json()["events"]
            after = max(0, visible[-1]["seq"] - 2)
            for _ in range(args.moves):
                started = time.perf_counter()
                response = session.get(url, params={"after": after})
                out.append(time.perf_counter() - started)
                if response.status_code != 200 or not response.json()["events"]:
                    raise RuntimeError(f"poll refused: {response.status_code} {response.text[:300]}")

        def bare(client: int, out: list[float]) -> None:
            table = tables[client]
            session = table.sessions[0]
            for _ in range(args.moves):
                started = time.perf_counter()
                response = session.post(f"{base}/_bench/bare/{table.game}")
                out.append(time.perf_counter() - started)
                if response.status_code != 200:
                    raise RuntimeError(f"bare refused: {response.status_code} {response.text[:300]}")

        # Warm-up: imports, connections, caches.
        saved = args.moves
        args.moves = 20
        run_clients(args.clients, bare)
        run_clients(args.clients, moves)
        run_clients(args.clients, polls)
        args.moves = saved

        chosen = args.phases.split(",")
        phases = {
            name: work
            for name, work in {"bare": bare, "moves": moves, "polls": polls}.items()
            if name in chosen
        }
        results: dict[str, list[tuple[list[float], float]]] = {name: [] for name in phases}
        cpu: dict[str, float] = dict.fromkeys(phases, 0.0)
        cpu_rounds: dict[str, list[float]] = {name: [] for name in phases}  # ms per request, per round
        load_before = Path("/proc/loadavg").read_text().split()[:3]
        speed_before = machine_speed_ms()
        for _ in range(args.rounds):
            for name, work in phases.items():
                if name == "moves":
                    spares_fill()
                print(f"phase {name} starts", file=sys.stderr, flush=True)
                before = process_cpu(server.pid)
                results[name].append(run_clients(args.clients, work))
                used = process_cpu(server.pid) - before
                cpu[name] += used
                cpu_rounds[name].append(used / len(results[name][-1][0]) * 1e3)
        load_after = Path("/proc/loadavg").read_text().split()[:3]
        speed_after = machine_speed_ms()

        print(
            f"preset {args.preset}, {args.clients} clients, {args.moves} requests each, "
            f"{args.rounds} rounds, Redis cache and wake-ups {'on' if env['REDIS_URL'] else 'off'}"
        )
        rates = {}
        for name, rounds in results.items():
            latencies = [x for lat, _ in rounds for x in lat]
            elapsed = sum(t for _, t in rounds)
            rates[name] = len(latencies) / elapsed
            print(
                f"{name:>5}: {rates[name]:8.1f} req/s   p50 {statistics.median(latencies) * 1e3:6.2f} ms"
                f"   p99 {percentile(latencies, 0.99) * 1e3:6.2f} ms   ({len(latencies)} requests)"
                f"   server CPU {cpu[name] / len(latencies) * 1e3:5.2f} ms/request"
            )
        if "moves" in phases:
            print(f"tables set up inside the moves phase (no spare left; counted in): {sum(set_up_inside)}")
        per = {name: cpu[name] / sum(len(lat) for lat, _ in results[name]) * 1e3 for name in phases}
        if args.rounds > 1:
            # The phases alternate, so each round is a sample of the host at that moment; on a shared
            # machine a slow stretch inflates one round of every phase, and the median shows it.
            for name in phases:
                figures = " ".join(f"{x:.2f}" for x in cpu_rounds[name])
                print(
                    f"{name:>5}: server CPU by round {figures} ms/request, "
                    f"median {statistics.median(cpu_rounds[name]):.2f}"
                )
        if len(phases) == 3:
            print(f"ratio moves/bare: {rates['moves'] / rates['bare']:.2f} (goal >= 0.75)")
            print(
                f"server CPU per move {per['moves']:.2f} ms "
                f"(goal <= 4; bare transaction {per['bare']:.2f} ms), "
                f"per poll {per['polls']:.2f} ms (goal <= 1.5)"
            )
        print(
            f"load average before {' '.join(load_before)}, after {' '.join(load_after)} "
            "(a shared 2-core machine: wall-clock rates are inflated by other work, CPU per request less)"
        )
        print(
            f"machine speed (support.machine_speed_ms, lower is faster): {speed_before:.1f} ms before, "
            f"{speed_after:.1f} ms after"
        )
    finally:
        server.terminate()
        server.wait(timeout=10)
        broker = env["CELERY_BROKER_URL"]
        if broker.startswith("redis://127.0.0.1:6379/15"):
            # The deadline tasks of the bench's deals, which no worker will run.
            import redis

            redis.Redis.from_url(broker).flushdb()


if __name__ == "__main__":
    main()
