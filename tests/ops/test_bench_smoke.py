"""A tiny run of each serving bench (bench/api_moves.py, bench/load_tables.py) on the pytest
database: the scripts still start today's roles (and a baseline's server, or its own roles), play,
check, and print their figures. Nothing here is timed; the figures are only read for being there."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from tests.games.worker import database_url, flush_redis
from tests.ops.server import require_services

pytestmark = pytest.mark.django_db(transaction=True)

BASE_DIR = Path(__file__).resolve().parent.parent.parent
# The bench's own Redis database: the scripts flush it after their run.
REDIS = "redis://127.0.0.1:6379/15"
NUMBER = r"\d+\.\d\d"


def baseline_available() -> bool:
    # A shallow clone has not got the baseline's commit; then only today's roles are run.
    sys.path.insert(0, str(BASE_DIR / "bench"))
    try:
        from support import BASELINE_COMMIT
    finally:
        sys.path.remove(str(BASE_DIR / "bench"))
    found = subprocess.run(
        ["git", "-C", str(BASE_DIR), "cat-file", "-e", f"{BASELINE_COMMIT}^{{commit}}"], capture_output=True
    )
    return found.returncode == 0


def run_bench(script: str, *args: str, env: dict | None = None) -> str:
    require_services()
    env = {
        **os.environ,
        "DATABASE_URL": database_url(connection.settings_dict),
        "REDIS_URL": REDIS,
        **(env or {}),
    }
    env.pop("PYTHONPATH", None)
    try:
        result = subprocess.run(
            [sys.executable, f"bench/{script}", *args],
            cwd=BASE_DIR,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        flush_redis(REDIS)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def test_api_moves_prints_each_phase_beside_the_baseline():
    baseline = baseline_available()
    out = run_bench(
        "api_moves.py", "--clients", "1", "--moves", "10", "--rounds", "1",
        *([] if baseline else ["--baseline", "none"]),
    )  # fmt: skip
    for phase in ("bare", "moves", "polls", "feed", "me"):
        row = rf"^\s*{phase}\s+{NUMBER} \[{NUMBER}\]\s+" + (rf"{NUMBER} \[{NUMBER}\]" if baseline else "-")
        assert re.search(row, out, re.MULTILINE), out
    # The CPU clock ticks every 10 ms: so few requests may show none, and the ratio says so.
    assert re.search(rf"CPU ratio \(moves \+ feed\) / me: current ({NUMBER}|n/a)", out), out


def test_load_tables_plays_and_checks_the_log():
    # Today's roles only: the baseline's server set is started by the api_moves smoke run above,
    # and a second load run would double the time of this one.
    out = run_bench(
        "load_tables.py", "--tables", "1", "--seconds", "4", "--warmup", "1", "--stagger", "0",
        "--think", "0.1", "--jitter", "0.05", "--no-worker", "--redis-db", "15", "--against", "current",
    )  # fmt: skip
    checked = re.search(
        r"^accepted moves checked against the event log: (\d+) in \d+ games, problems: 0$", out, re.M
    )
    assert checked and int(checked[1]) > 0, out
    assert re.search(r"^server CPU: .*\(web \d+\.\d s, events \d+\.\d s\)", out, re.MULTILINE), out


def test_load_tables_runs_a_baseline_by_its_own_roles(tmp_path):
    # This very commit as the baseline: always in the clone, and it has the three roles. Extracted
    # into the test's temporary directory, so that no commit's tree is left behind.
    head = subprocess.run(
        ["git", "-C", str(BASE_DIR), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    out = run_bench(
        "load_tables.py", "--tables", "1", "--seconds", "4", "--warmup", "1", "--stagger", "0",
        "--think", "0.1", "--jitter", "0.05", "--worker-concurrency", "1", "--redis-db", "15",
        "--against", "baseline", "--baseline", head, "--baseline-roles",
        env={"TMPDIR": str(tmp_path)},
    )  # fmt: skip
    assert f"== baseline {head} (its roles):" in out, out
    assert (tmp_path / f"bh-baseline-{head}" / "config" / "gunicorn_events.py").exists()
    checked = re.search(
        r"^accepted moves checked against the event log: (\d+) in \d+ games, problems: 0$", out, re.M
    )
    assert checked and int(checked[1]) > 0, out
    assert re.search(r"^server CPU: .*\(web \d+\.\d s, events \d+\.\d s\)", out, re.MULTILINE), out
    assert re.search(r"^worker CPU: \d+\.\d s", out, re.MULTILINE), out
