"""Every benchmark in bench/ runs end to end at a tiny size (bench/README.md): a script that no longer
starts, crashes on its first deal or loses a figure line fails here, not on the day it is needed.

The figures of such short runs mean nothing; only that the script ran and printed them. The scripts
that need PostgreSQL share one database, `<DATABASE_URL's name>_bench`, migrated once here (a
script's own `migrate` then has nothing to do), and one Redis database, BENCH_SMOKE_REDIS_DB
(default 11; the scripts flush it). Those that start servers get the smallest load they accept.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
REDIS_DB = os.environ.get("BENCH_SMOKE_REDIS_DB", "11")

# script -> (tiny arguments, a line of its figures it must print)
TINY = {
    "engine_selfplay.py": (["--seconds", "0.1", "--rounds", "1"], "decisions/s"),
    "engine_listings.py": (["--seeds", "1", "--preset", "weihai"], "listings identical"),
    "bot_strength.py": (["--deals", "2", "--presets", "weihai", "--processes", "1"], "weihai"),
    "matcher.py": (["--sizes", "5", "--plan", "20"], "planning alone"),
    "tournament.py": (
        ["--players", "7", "--rounds", "1", "--boards", "1", "--baseline-tables", "1"],
        "standings recomputed from the final views: equal",
    ),
    "ops_overhead.py": (["--requests", "5", "--rounds", "1"], "/readyz"),
    "move_costs.py": (["--moves", "3", "--redis-db", REDIS_DB], "SQL"),
    "token_lookup.py": (["--lookups", "20", "--forgets", "5", "--redis-db", REDIS_DB], "invalidation"),
    "push.py": (["--moves", "3", "--devices", "1", "--pushes", "3", "--redis-db", REDIS_DB], "pushes/s"),
    "deal_end.py": (["--deals", "2"], "same transaction"),
    "phone_recovery.py": (["--deals", "1", "--redis-db", REDIS_DB], "outage 30 s"),
    "wire_bytes.py": (["--deals", "1", "--max-moves", "10", "--redis-db", REDIS_DB], "per move"),
    "timer_lateness.py": (
        ["--timeouts", "2", "--probes", "2", "--tables", "1", "--concurrency", "1", "--seconds", "20"],
        "timeout ->",
    ),
}
# Smoke runs kept beside what they need: the serving benchmarks start both roles and the baseline's
# server (tests/ops/test_bench_smoke.py); the web client's needs Chromium and the running service of
# the browser tests (tests/browser/test_web_client.py `test_bench_web_client_smoke`).
ELSEWHERE = {"api_moves.py", "load_tables.py", "web_client.py"}
# Imported by the scripts above, never run on their own.
MODULES = {"support.py", "celery_probe.py"}


def test_every_bench_script_has_a_smoke_run():
    scripts = {path.name for path in BENCH.glob("*.py")}
    assert scripts - MODULES == set(TINY) | ELSEWHERE, "give each new bench script its tiny run in TINY"
    for name in MODULES:
        assert '__name__ == "__main__"' not in (BENCH / name).read_text(), f"{name} is a script now"


@pytest.fixture(scope="session")
def bench_env():
    """The environment of the runs: one database of their own, migrated once, and one Redis database."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        # scripts/test always sets DATABASE_URL: in CI this must run, never be skipped.
        reason = "the bench scripts measure PostgreSQL (set DATABASE_URL)"
        (pytest.fail if os.environ.get("CI") else pytest.skip)(reason)
    sys.path.insert(0, str(BENCH))
    try:
        from support import ensure_database
    finally:
        sys.path.remove(str(BENCH))
    base, name = url.split("?")[0].rsplit("/", 1)
    database = f"{base}/{name}_bench"
    ensure_database(database)
    redis_url = f"redis://127.0.0.1:6379/{REDIS_DB}"
    env = {
        **os.environ,
        "DATABASE_URL": database,
        "MATCHER_BENCH_DATABASE_URL": database,
        "TOURNAMENT_BENCH_DATABASE_URL": database,
        "TIMER_BENCH_DATABASE_URL": database,
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": redis_url,
        "REDIS_BENCH_URL": redis_url,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "PYTHONPATH": str(ROOT),
    }
    migrate = [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"]
    subprocess.run(migrate, cwd=ROOT, env=env, check=True, timeout=300)
    return env


@pytest.mark.parametrize("script", sorted(TINY))
def test_bench_script_runs_at_a_tiny_size(script, bench_env):
    arguments, figure = TINY[script]
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *arguments],
        cwd=ROOT,
        env=bench_env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert figure in done.stdout, done.stdout[-3000:]
