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
