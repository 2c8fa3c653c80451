"""What the bench scripts share: a free loopback port, their own PostgreSQL database, Django set up
in the script's own process, percentiles,
a measure of how fast the machine is at the time, the CPU time of a process tree, and the servers
they measure: today's two roles, or the baseline (the single-server model, run from its commit).

The scripts run as `python bench/<name>.py`, so this module is found next to them.
"""

import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import defaultdict
from pathlib import Path


def in_process_urls(*, script: str, redis_db: int) -> tuple[str, str]:
    """(database URL, Redis URL) of a script that measures through the test client: the PostgreSQL
    of DATABASE_URL (default bh_capacity) and Redis database `redis_db`."""
    database_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bh_capacity")
    if not database_url.startswith("postgres"):
        sys.exit(f"bench/{script} measures PostgreSQL: set DATABASE_URL=postgres://...")
    return database_url, f"redis://127.0.0.1:6379/{redis_db}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ensure_database(url: str) -> None:
    """Create the database `url` names if it does not exist (connecting to `postgres` to do so)."""
    import psycopg

    name = url.rsplit("/", 1)[1].split("?")[0]
    admin_url = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def django_in_process(*, database_url: str, redis_url: str, env: dict | None = None) -> None:
    """Set up Django in this process as the one-process benches run it (`in_process_environment`,
    then `env`), and migrate."""
    environment = in_process_environment(database_url=database_url, redis_url=redis_url)
    os.environ.update({**environment, **(env or {})})
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", "--noinput", verbosity=0)


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank percentile (`q` in 0..1); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def in_process_environment(*, database_url: str, redis_url: str) -> dict[str, str]:
    """The environment of a script that runs the web's stack in its own process (Django's test
    client): the local settings without debug, the bench's database and Redis as cache and broker."""
    return {
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DJANGO_DEBUG": "0",
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": redis_url,
        "LOG_LEVEL": "WARNING",
        "DJANGO_ALLOWED_HOSTS": "testserver",
    }


def one_deal_table(staff, players, rng, preset: str):
    """A one-deal table with a known seed (staff `setups`), the five `players` (Django test clients)
    seated in order; (its deal's id, the engine's state of that deal) for replaying it locally."""
    from games import engine

    seed = rng.randrange(2**62)
    table = staff.post(
        "/api/v1/tables",
        {"preset": preset, "deals": 1, "setups": [{"seed": seed}]},
        content_type="application/json",
    ).json()
    for seat, player in enumerate(players):
        player.post(
            f"/api/v1/tables/{table['id']}/join",
            {"code": table["code"], "seat": seat},
            content_type="application/json",
        )
    game = staff.get(f"/api/v1/tables/{table['id']}").json()["current_game"]
    return game, engine.new_deal(engine.preset(preset), seed=seed, start_seat=0, context=None)


def random_move(state, rng) -> tuple[int, object, dict]:
    """A legal move of the first seat to act, plays four times in five: (seat, action, request body
    without `expected_version`)."""
    from games import engine

    seat = engine.to_act(state)[0]
    legal = engine.legal_actions(state, seat)
    plays = [a for a in legal if a.type == "play"]
    action = rng.choice(plays) if plays and rng.random() < 0.8 else rng.choice(legal)
    payload = {"type": action.type}
    if action.cards:
        payload["cards"] = list(action.cards)
    if action.card is not None:
        payload["card"] = action.card
    return seat, action, payload


def machine_speed_ms() -> float:
    """CPU milliseconds of a fixed piece of pure-Python work (dicts, strings, calls), best of five.

    The development machine is a VM on a shared host: the same instructions cost more CPU time when
    its neighbours are busy (28–64 ms for this on 2026-12-02, flapping within seconds), so
    CPU-per-request figures from different hours are comparable only next to this figure from the
    same run (bench/README.md "Machine speed")."""

    def work() -> int:
        total = 0
        for i in range(60_000):
            entry = {"seq": i, "type": "play", "cards": [str(i), "3S"]}
            total += len(f"{entry['type']}:{entry['seq']}") + len(entry["cards"])
        return total

    best = float("inf")
    for _ in range(5):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best * 1e3


# The servers a bench measures: today's two roles, or the baseline.

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")
# The last commit of the single-server model (one ASGI application for every request, with its
# "lanes" around Django), before the web and events roles. The scripts measure it in the same run.
BASELINE_COMMIT = "b16a8f7"
# The paths deploy/nginx.conf sends to the `events` role when the method is GET or HEAD.
EVENT_PATHS = re.compile(r"^/api/v1/(?:(?:games|tables)/\d+/events|me/events|matchmaking/tickets/\d+)/?$")


def process_tree_cpu(root_pid: int) -> float:
    """CPU seconds (user + system) of `root_pid` and its live descendants, from /proc."""
    children: dict[int, list[int]] = defaultdict(list)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            children[int(stat.rsplit(")", 1)[1].split()[1])].append(int(entry))
    total, todo = 0.0, [root_pid]
    while todo:
        pid = todo.pop()
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / TICKS
        todo.extend(children.get(pid, []))
    return total


def baseline_tree(commit: str = BASELINE_COMMIT) -> Path:
    """The repository at `commit`, extracted once under the temporary directory (git archive)."""
    tree = Path(tempfile.gettempdir()) / f"bh-baseline-{commit}"
    if not (tree / "manage.py").exists():
        partial = Path(tempfile.mkdtemp(prefix=f"bh-baseline-{commit}-"))
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(partial)], input=archive, check=True)
        try:
            partial.rename(tree)
        except OSError:  # another run extracted it meanwhile
            pass
    return tree


def baseline_migrations_unknown(tree: Path) -> list[str]:
    """The migrations of the baseline `tree` this checkout has not got (their paths): the bench's
    database is migrated by this checkout, so a baseline that needs one of them cannot run on it."""

    def names(root: Path) -> set[str]:
        found = [*root.glob("*/migrations/[0-9]*.py"), *root.glob("*/*/migrations/[0-9]*.py")]
        return {path.relative_to(root).as_posix() for path in found}

    return sorted(names(tree) - names(ROOT))


class Servers:
    """One measured server set: its processes, and the URL of a path as the proxy routes it.

    The bench client routes by path itself, as deploy/nginx.conf does (`EVENT_PATHS` to the events
    role, the rest to web): no proxy process stands between, so the figures are the roles' own."""

    def __init__(self, name: str, web: str, events: str, processes: list[subprocess.Popen], log: Path):
        self.name, self.web, self.events, self.processes, self.log = name, web, events, processes, log

    def url(self, path: str, method: str = "GET") -> str:
        """`path` from /api/v1/ on, e.g. "/games/3/events"."""
        full = "/api/v1" + path
        role = self.events if method in ("GET", "HEAD") and EVENT_PATHS.match(full) else self.web
        return role + full

    def cpu(self) -> float:
        return sum(process_tree_cpu(p.pid) for p in self.processes)

    def wait_ready(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        for base in {self.web, self.events}:
            while True:
                try:
                    urllib.request.urlopen(f"{base}/healthz", timeout=5).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or any(p.poll() is not None for p in self.processes):
                        sys.exit(f"{self.name} did not start; its log: {self.log}")
                    time.sleep(0.2)

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def spawn(command: list[str], tree: Path, env: dict, log) -> subprocess.Popen:
    # The tree's own code first on the path: the venv's installed project is another checkout.
    env = {**env, "PYTHONPATH": str(tree)}
    return subprocess.Popen(command, cwd=tree, env=env, stdout=log, stderr=subprocess.STDOUT)


def start_current(
    env: dict, *, web_workers: int = 0, events_workers: int = 0, root: Path = ROOT, name: str = "current"
) -> Servers:
    """Today's production roles from this checkout (or from `root`, a baseline's tree that has the
    same roles): `web` (gunicorn gthread, config/gunicorn.py) and `events` (gunicorn with uvicorn
    workers, config/gunicorn_events.py), each with its defaults unless a worker count is given."""
    web_port, events_port = free_port(), free_port()
    env = {**env, "WEB_BIND": f"127.0.0.1:{web_port}", "EVENTS_BIND": f"127.0.0.1:{events_port}"}
    if web_workers:
        env["WEB_CONCURRENCY"] = str(web_workers)
    if events_workers:
        env["EVENTS_CONCURRENCY"] = str(events_workers)
    log_path = Path(tempfile.gettempdir()) / f"bh-bench-{name.split()[0]}-{web_port}.log"
    log = open(log_path, "w")  # noqa: SIM115 - the children write to it until stop()
    gunicorn = [sys.executable, "-m", "gunicorn", "--config"]
    processes = [
        spawn([*gunicorn, "python:config.gunicorn"], root, env, log),
        spawn([*gunicorn, "python:config.gunicorn_events"], root, env, log),
    ]
    web, events = f"http://127.0.0.1:{web_port}", f"http://127.0.0.1:{events_port}"
    return Servers(name, web, events, processes, log_path)


def start_baseline(env: dict, *, server: str, web_workers: int = 0, commit: str = BASELINE_COMMIT) -> Servers:
    """The single-server model at `commit`: every path on one ASGI application, as its benches ran
    it, `server` "uvicorn" (one process) or "gunicorn" (its config/gunicorn.py: uvicorn workers)."""
    tree = baseline_tree(commit)
    port = free_port()
    log_path = Path(tempfile.gettempdir()) / f"bh-bench-baseline-{port}.log"
    log = open(log_path, "w")  # noqa: SIM115 - the children write to it until stop()
    if server == "uvicorn":
        command = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1",
                   "--port", str(port), "--no-access-log", "--log-level", "warning"]  # fmt: skip
        env = {**env, "DB_POOL_MAX_SIZE": env.get("DB_POOL_MAX_SIZE", "8")}
    else:
        command = [sys.executable, "-m", "gunicorn", "--config", "python:config.gunicorn"]
        env = {**env, "WEB_BIND": f"127.0.0.1:{port}"}
        if web_workers:
            env["WEB_CONCURRENCY"] = str(web_workers)
    base = f"http://127.0.0.1:{port}"
    return Servers(f"baseline {commit}", base, base, [spawn(command, tree, env, log)], log_path)
