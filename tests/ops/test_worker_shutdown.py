"""A Celery worker told to stop (SIGTERM: warm shutdown) finishes the task it is running and leaves
the tasks it had only reserved to the broker, where the next worker finds them; its metrics endpoint
counts task failures; its JSON log lines carry the task's id and game.

A real `celery worker` on Redis (tests/games/worker.py), like the timer tests.
"""

import json
import os
import signal
import socket
import time
import urllib.request

import pytest
from django.db import connection

from tests.games.worker import Worker, database_url, flush_redis, use_broker
from tests.ops.scrape import samples, value

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]

BROKER = os.environ.get("CELERY_WORKER_TEST_BROKER", "redis://127.0.0.1:6379/13")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def broker():
    if connection.vendor != "postgresql":
        reason = "real-worker tests need PostgreSQL (set DATABASE_URL)"
        (pytest.fail if os.environ.get("CI") else pytest.skip)(reason)
    flush_redis(BROKER)
    previous = use_broker(BROKER)
    try:
        yield BROKER
    finally:
        use_broker(*previous)
        flush_redis(BROKER)


def make_worker(tmp_path, **env) -> Worker:
    return Worker(
        broker=BROKER,
        database=database_url(connection.settings_dict),
        workdir=tmp_path,
        concurrency=1,
        include="tests.ops.worker_tasks",
        env={"LOG_FORMAT": "json", **env},
    )


def lines_of(path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def wait_for(predicate, timeout: float, what: str, worker: Worker) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"{what} not seen after {timeout}s:\n{worker.log_tail()}")


def test_sigterm_finishes_the_running_task_and_leaves_the_reserved_one_to_the_next_worker(broker, tmp_path):
    from tests.ops import worker_tasks

    done = tmp_path / "done.txt"
    first = make_worker(tmp_path)
    first.start()
    try:
        worker_tasks.slow.delay(path=str(done), name="running", seconds=3, game_id=41)
        worker_tasks.slow.delay(path=str(done), name="reserved", seconds=0, game_id=42)
        wait_for(lambda: b"slow task running started" in first.log_path.read_bytes(), 30, "start", first)
        first.process.send_signal(signal.SIGTERM)
        exit_code = first.process.wait(timeout=60)
    finally:
        first.kill()
    first_log = first.log_path.read_text()
    assert exit_code == 0, first_log[-3000:]
    assert [line.split()[0] for line in lines_of(done)] == ["running"], first_log[-3000:]

    # The task's own line carries its id and game, in JSON.
    started = [
        record
        for record in map(json.loads, (line for line in first_log.splitlines() if line.startswith("{")))
        if record.get("message") == "slow task running started"
    ]
    assert len(started) == 1 and started[0]["game_id"] == 41 and started[0]["task_id"]
    assert started[0]["task_name"] == "tests.ops.slow"

    second = make_worker(tmp_path)
    second.start()
    try:
        wait_for(lambda: len(lines_of(done)) >= 2, 30, "the reserved task", second)
        time.sleep(1)
    finally:
        second.kill()
    # Each ran exactly once: the running one in the first worker, the reserved one in the second.
    assert [line.split() for line in lines_of(done)] == [
        ["running", str(first.process.pid)],
        ["reserved", str(second.process.pid)],
    ]


def test_the_worker_metrics_endpoint_counts_task_failures(broker, tmp_path):
    from tests.ops import worker_tasks

    port = free_port()
    worker = make_worker(tmp_path, WORKER_METRICS_PORT=str(port), WORKER_METRICS_ADDR="127.0.0.1")
    worker.start()
    try:
        for game_id in (1, 2):
            worker_tasks.fails.delay(game_id=game_id)

        def failures() -> float:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as response:
                    text = response.read().decode()
            except OSError:
                return 0
            return value(samples(text), "baohuang_celery_task_failures_total", task="tests.ops.fails")

        wait_for(lambda: failures() == 2, 30, "two failures on the worker's /metrics", worker)
    finally:
        worker.kill()
