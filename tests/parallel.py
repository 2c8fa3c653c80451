"""How scripts/test spreads the suite over processes (pytest-xdist, `--dist loadgroup`).

Every test module runs whole on one process (its module-scoped servers are started once). Modules
that share something outside their process run on the same one: the local Redis's numbered
databases, which some tests flush and where a real Celery worker takes whatever task it finds
(a second worker on the same database would run another module's tasks). Each process has its own
PostgreSQL test database (pytest-django's `test_<name>_gw<n>`); servers a test starts read that
database from the connection settings, and take free ports and a temporary `VAR_DIR`.
tests/test_parallel_groups.py fails when a module uses the local Redis without a group here.
"""

SHARED_GROUPS = {
    # A real worker on redis://…/13 (tests/games/worker.py flushes it).
    "redis-13": (
        "tests/games/test_worker.py",
        "tests/integrations/test_webhook_worker.py",
        "tests/push/test_worker.py",
        "tests/e2e/test_play_now.py",
        "tests/ops/test_worker_shutdown.py",
    ),
    # Wake-ups, presence and the push hand-over on redis://…/14 (tests/api/sse.py use_redis;
    # test_presence and test_sweep flush it).
    "redis-14": (
        "tests/events/test_subscriptions.py",
        "tests/events/test_streams.py",
        "tests/events/test_long_polls.py",
        "tests/events/test_caps.py",
        "tests/push/test_presence.py",
        "tests/push/test_sweep.py",
        "tests/api/test_busy_database.py",
    ),
    # The production roles of tests/ops/server.py on …/12, the deployment's worker on …/11, the
    # bench scripts' runs on …/11 and …/15, the token memo's forgets on …/11.
    "redis-11-12-15": (
        "tests/ops/test_deployment.py",
        "tests/ops/test_json_logs.py",
        "tests/ops/test_request_bodies.py",
        "tests/ops/test_shutdown.py",
        "tests/ops/test_web_metrics.py",
        "tests/ops/test_bench_smoke.py",
        "tests/bench/test_smoke.py",
        "tests/accounts/test_token_memo.py",
    ),
    # Batched wake-ups on …/0 and …/7.
    "redis-0-7": ("tests/config/test_wakeups_batched.py",),
}

GROUP_OF = {module: group for group, modules in SHARED_GROUPS.items() for module in modules}


def group_of(module: str) -> str:
    """The xdist group of a test module given by its path from the repository's root."""
    return GROUP_OF.get(module, module)


# The longest groups, in seconds of one run over two processes (scripts/test on a 2-core machine,
# 2026-12-06, load average 5–9; pytest's --junitxml times summed per group). Under xdist each process
# takes the next group whenever it is nearly idle, so the longest go first (tests/conftest.py) and
# the many short ones fill in at the end; scripts/test passes --no-loadscope-reorder, without which
# xdist orders groups by their number of tests and a long group of few tests (the start script's,
# the browser's) started last and ran alone for minutes. Groups not named here are shorter than
# 40 s and keep the collection's order after these. Round figures: only their order matters.
GROUP_SECONDS = {
    "tests/browser/test_web_client.py": 480,
    "redis-11-12-15": 390,
    "tests/api/test_no_leaks.py#flushes": 370,
    "tests/contract/test_conformance.py": 350,
    "redis-13": 200,
    "tests/e2e/test_start_script.py": 190,
    "redis-14": 160,
    "tests/games/test_services.py": 150,
    "tests/api/test_schema.py#flushes": 130,
    "tests/tournaments/test_event.py": 110,
    "tests/contract/test_typescript_client.py#flushes": 110,
    "tests/matchmaking/test_deal_end_steps.py": 100,
    "tests/games/test_replay.py": 80,
    "tests/api/test_fuzz.py#flushes": 80,
    "tests/contract/test_generated_client.py#flushes": 80,
    "tests/games/test_rated_deals.py": 80,
    "tests/moderation/test_admin_lookups.py": 80,
    "tests/games/test_coming_back.py": 70,
    "tests/faults/test_faults.py": 70,
    "tests/browser/test_admin_moderation.py#flushes": 60,
    "tests/matchmaking/test_matching.py": 60,
    "tests/matchmaking/test_table_events.py": 60,
    "tests/accounts/test_migrations.py#flushes": 50,
    "tests/contract/test_quick_tour.py#flushes": 50,
    "tests/ops/test_feed_client.py#flushes": 50,
}


def group_seconds(group: str) -> int:
    """How long a group runs, as far as the order of handing groups out needs to know (0: short)."""
    return GROUP_SECONDS.get(group, 0)
