"""What the bench scripts share: a free loopback port, their own PostgreSQL database, percentiles,
and a measure of how fast the machine is at the time.

The scripts run as `python bench/<name>.py`, so this module is found next to them.
"""

import socket


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


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank percentile (`q` in 0..1); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def machine_speed_ms() -> float:
    """CPU milliseconds of a fixed piece of pure-Python work (dicts, strings, calls), best of five.

    The development machine is a VM on a shared host: the same instructions cost more CPU time when
    its neighbours are busy (28–64 ms for this on 2026-12-02, flapping within seconds), so
    CPU-per-request figures from different hours are comparable only next to this figure from the
    same run (bench/README.md "Machine speed")."""
    import time

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
