"""Modules that use the local Redis share a process under xdist (tests/parallel.py)."""

import re
from pathlib import Path

from tests.parallel import GROUP_OF

ROOT = Path(__file__).resolve().parent.parent
# What puts a module on the local Redis: its address, or the helpers that point settings or a worker
# at it (tests/api/sse.py use_redis, tests.conftest.require_local_redis, tests/games/worker.py,
# tests/ops/server.py).
USES_LOCAL_REDIS = re.compile(
    r"127\.0\.0\.1:6379|use_redis\(|require_local_redis\(|tests\.games(\.| import )worker|"
    r"tests\.ops(\.| import )server|from \.(worker|server) import"
)


def test_every_module_on_the_local_redis_has_a_shared_group():
    modules = sorted(
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "tests").rglob("test_*.py")
        if "node_modules" not in path.parts and USES_LOCAL_REDIS.search(path.read_text())
    )
    assert modules, "the pattern finds nothing: it no longer describes how tests reach Redis"
    assert [m for m in modules if m not in GROUP_OF] == []


def test_every_grouped_module_exists():
    assert [m for m in GROUP_OF if not (ROOT / m).is_file()] == []


def test_xdist_workers_mark_each_test_with_its_group():
    """The groups are marks that tests/conftest.py adds on xdist's workers (which collect the tests;
    a worker's own options say `dist = "no"`). Without them `--dist loadgroup` spreads a group's
    modules over processes, and two real workers share one broker. A test run over two processes
    reports its node id with its group's name, as xdist's scheduler reads it."""
    import os
    import subprocess
    import sys

    module = "tests/bench/test_smoke.py"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-n",
            "2",
            "--dist",
            "loadgroup",
            "-v",
            f"{module}::test_every_bench_script_has_a_smoke_run",
        ],
        cwd=ROOT,
        # A run of its own, not a worker of this one (under scripts/test this test runs on a worker).
        env={k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert f"{module}::test_every_bench_script_has_a_smoke_run@{GROUP_OF[module]}" in run.stdout, run.stdout[
        -2000:
    ]


def test_every_timed_group_exists():
    """GROUP_SECONDS names groups as tests/conftest.py makes them: a shared group's name, or a
    module's path, with `#flushes` for its tests that flush the database."""
    from tests.parallel import GROUP_SECONDS, SHARED_GROUPS

    def exists(group: str) -> bool:
        return group in SHARED_GROUPS or (ROOT / group.removesuffix("#flushes")).is_file()

    assert [group for group in GROUP_SECONDS if not exists(group)] == []


def test_the_longest_groups_are_handed_out_first():
    """Under xdist the collection is sorted longest group first, each group's tests in their order
    (xdist, with --no-loadscope-reorder, hands the groups out in the collection's order)."""
    import pytest

    from tests.conftest import _LongestGroupsFirst
    from tests.parallel import GROUP_SECONDS

    long_group, longer_group = sorted(GROUP_SECONDS, key=GROUP_SECONDS.get)[-2:]

    class Item:
        def __init__(self, name: str, group: str | None):
            self.name = name
            self.mark = pytest.mark.xdist_group(group).mark if group else None

        def get_closest_marker(self, name: str):
            return self.mark if name == "xdist_group" else None

    items = [
        Item("short 1", "tests/some_short_module.py"),
        Item("long 1", long_group),
        Item("unmarked", None),
        Item("longer 1", longer_group),
        Item("long 2", long_group),
        Item("longer 2", longer_group),
    ]
    _LongestGroupsFirst().pytest_collection_modifyitems(items)
    assert [item.name for item in items] == [
        "longer 1",
        "longer 2",
        "long 1",
        "long 2",
        "short 1",
        "unmarked",
    ]
