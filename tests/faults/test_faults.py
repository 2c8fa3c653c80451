"""The fault suite (docs/deploy.md "What happens when …"): the production topology of
tests/faults/topology.py plays tables throughout while each fault is injected in turn — Redis killed
and restarted, PostgreSQL stopped and started, a web worker, an event server, a Celery worker and the
beat killed — and then checks what clients saw and what the database holds:

* no 500 and no answer under /api/ that is not JSON in the one error shape;
* while PostgreSQL is down, only 503 (with Retry-After) among the errors;
* play resumes within 5 s of each recovery (a move is accepted);
* every game's log is exact: seqs 1..last_seq, each applied action once (versions consecutive),
  the stored state equal to the replay of its actions; every Idempotency-Key applied at most once;
* no timer is lost: no running deal is left past its deadline by more than the sweep's period.

Players are guests that quick-match with bots, follow their feed by long-poll, and answer each
`your_turn` with one of its legal actions under an Idempotency-Key, retrying with the same key after
a 5xx or a dropped connection (docs/client-guide.md §6). FAULTS_PLAYERS and FAULTS_SECONDS make it
larger (docs/deploy.md gives the larger run's figures).
"""

import contextlib
import http.client
import json
import os
import random
import shutil
import signal
import socket
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest

from tests.faults.topology import NGINX, Topology, wait_until

pytestmark = pytest.mark.celery_worker

PLAYERS = int(os.environ.get("FAULTS_PLAYERS", "3"))  # quick-matched into tables, with bots
FAULT_SECONDS = float(os.environ.get("FAULTS_SECONDS", "4"))


@dataclass
class Answer:
    at: float  # when the answer came
    method: str
    path: str
    status: int  # 0: the connection failed
    content_type: str
    body: bytes
    sent: float = 0.0  # when the request was sent


@dataclass
class Record:
    answers: list[Answer] = field(default_factory=list)
    accepted: list[float] = field(default_factory=list)  # when a move was accepted
    keys: dict[str, int] = field(default_factory=dict)  # Idempotency-Key -> accepted answers
    lock: threading.Lock = field(default_factory=threading.Lock)


class Player:
    def __init__(self, port: int, record: Record, rng: random.Random):
        self.port, self.record, self.rng = port, record, rng
        self.token: str | None = None
        self.after = 0

    def call(self, method: str, path: str, body=None, headers=None, timeout: float = 15.0) -> Answer:
        sent = {"Content-Type": "application/json", **(headers or {})}
        if self.token:
            sent["Authorization"] = f"Bearer {self.token}"
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        sent_at = time.monotonic()
        try:
            conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=sent)
            response = conn.getresponse()
            answer = Answer(
                time.monotonic(),
                method,
                path,
                response.status,
                response.getheader("Content-Type") or "",
                response.read(),
                sent_at,
            )
        except (OSError, http.client.HTTPException):
            answer = Answer(time.monotonic(), method, path, 0, "", b"", sent_at)
        finally:
            conn.close()
        with self.record.lock:
            self.record.answers.append(answer)
        return answer

    def until_ok(
        self, method: str, path: str, body=None, headers=None, *, stop: threading.Event
    ) -> Answer | None:
        """Retry the same request (same key) after a 5xx or a dropped connection."""
        while not stop.is_set():
            answer = self.call(method, path, body, headers)
            if answer.status and answer.status < 500:
                return answer
            time.sleep(0.3)
        return None

    def run(self, stop: threading.Event) -> None:
        answer = self.until_ok("POST", "/api/v1/auth/guest", {}, stop=stop)
        if answer is None:
            return
        self.token = json.loads(answer.body)["token"]
        if (
            self.until_ok(
                "POST", "/api/v1/matchmaking/tickets", {"preset": "weihai", "bots": True}, stop=stop
            )
            is None
        ):
            return
        while not stop.is_set():
            answer = self.until_ok("GET", f"/api/v1/me/events?after={self.after}&wait=5", stop=stop)
            if answer is None or answer.status != 200:
                time.sleep(0.3)
                continue
            feed = json.loads(answer.body)
            self.after = feed["last_seq"]
            prompts = [entry for entry in feed["events"] if entry["type"] == "your_turn"]
            if prompts:
                self.answer(prompts[-1], stop)

    def answer(self, prompt: dict, stop: threading.Event) -> None:
        if not prompt.get("legal_actions"):
            return
        action = self.rng.choice(prompt["legal_actions"])
        key = uuid.uuid4().hex
        answer = self.until_ok(
            "POST",
            f"/api/v1/games/{prompt['game']}/actions",
            {**action, "expected_version": prompt["version"]},
            {"Idempotency-Key": key},
            stop=stop,
        )
        if answer is not None and answer.status == 200:
            with self.record.lock:
                self.record.accepted.append(answer.at)
                self.record.keys[key] = self.record.keys.get(key, 0) + 1


def _errors_are_json(record: Record) -> list[str]:
    bad = []
    for answer in record.answers:
        if answer.status >= 400 and answer.path.startswith("/api/"):
            try:
                body = json.loads(answer.body)
                assert answer.content_type.startswith("application/json") and {"code", "message"} <= set(body)
            except (ValueError, AssertionError):
                bad.append(f"{answer.status} {answer.method} {answer.path}: {answer.body[:120]!r}")
        if answer.status == 500:
            bad.append(f"500 {answer.method} {answer.path}: {answer.body[:200]!r}")
    return bad


def _resumed_after(record: Record, moment: float) -> float:
    """Seconds from `moment` to the first move accepted after it."""

    def accepted():
        with record.lock:
            return any(at > moment for at in record.accepted)

    return wait_until(accepted, timeout=30, what="a move accepted after the recovery")


def _port_open(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
        return True
    return False


def _check_the_database(url: str, record: Record) -> dict:
    from games import engine

    checked = {"games": 0, "actions": 0}
    with psycopg.connect(url, autocommit=True) as conn:
        games = conn.execute(
            "SELECT g.id, g.last_seq, g.version, g.state, g.setup, g.preset, g.options, g.status, g.deadline"
            " FROM games_game g"
        ).fetchall()
        for game_id, last_seq, _version, state, setup, preset, options, status, deadline in games:
            rows = conn.execute(
                "SELECT seq, action, version FROM games_event WHERE game_id = %s ORDER BY seq", [game_id]
            ).fetchall()
            assert [row[0] for row in rows] == list(range(1, last_seq + 1)), f"game {game_id}: seqs"
            actions = [(row[1], row[2]) for row in rows if row[1] is not None]
            if status != "aborted":  # an abort is a version without an action
                assert [v for _, v in actions] == list(range(1, len(actions) + 1)), (
                    f"game {game_id}: versions"
                )
                rules = engine.preset(preset, **(options or {}))
                replayed = engine.replay(
                    rules,
                    {key: value for key, value in setup.items()},
                    [(seat, engine.action_from_dict(action)) for (seat, action), _ in actions],
                )
                assert engine.to_json(replayed) == state, f"game {game_id}: replay differs"
            if status == "running" and deadline is not None:
                late = conn.execute("SELECT extract(epoch FROM now() - %s)", [deadline]).fetchone()[0]
                assert late < 10, f"game {game_id}: {late:.1f}s past its deadline, timer lost"
            checked["games"] += 1
            checked["actions"] += len(actions)
        keys = conn.execute("SELECT key, count(*) FROM games_idempotencykey GROUP BY key").fetchall()
        assert all(count == 1 for _, count in keys)
    assert all(count == 1 for count in record.keys.values()), "a key was accepted twice"
    return checked


@pytest.fixture(scope="module")
def topology():
    for tool in (NGINX, "redis-server"):
        if not (
            os.path.exists(tool)
            or any(os.access(os.path.join(d, tool), os.X_OK) for d in os.environ.get("PATH", "").split(":"))
        ):
            (pytest.fail if os.environ.get("CI") else pytest.skip)(f"needs {tool}")
    # Not under pytest's tmp_path: the database server runs as `postgres`, which may not enter it.
    workdir = Path(tempfile.mkdtemp(prefix="baohuang-faults-"))
    os.chmod(workdir, 0o755)
    world = Topology(workdir)
    try:
        world.start()
        wait_until(
            lambda: Player(world.port, Record(), random.Random()).call("GET", "/readyz").status == 200,
            timeout=90,
            what="the topology ready",
        )
        yield world
    finally:
        world.stop_all()
        if not os.environ.get("FAULTS_KEEP"):
            shutil.rmtree(workdir, ignore_errors=True)


def test_consecutive_requests_on_different_replicas_see_one_state(topology):
    """Each replica keeps per-process caches: the game-state cache and the token memo in every web
    and event process, a wake-up subscription per event process. One client's consecutive requests,
    sent in turn to each web replica and each event server directly, must see one state: a replica
    never answers an older version than another already did, moves committed elsewhere reach a
    long-poll waiting on an event server, and a token revoked on one is refused by all of them at
    once."""
    web, events = topology.web_ports, topology.events_ports
    client = Player(web[0], Record(), random.Random(11))

    def on(port: int) -> Player:
        client.port = port
        return client

    answer = on(web[0]).call("POST", "/api/v1/auth/guest", {})
    assert answer.status == 201, answer.body
    client.token = json.loads(answer.body)["token"]
    answer = on(web[1]).call("POST", "/api/v1/matchmaking/tickets", {"preset": "weihai", "bots": True})
    assert answer.status == 201, answer.body

    moves = 0
    deadline = time.monotonic() + 90
    while moves < 8 and time.monotonic() < deadline:
        # The feed long-polled on each event server in turn.
        answer = on(events[moves % 2]).call("GET", f"/api/v1/me/events?after={client.after}&wait=5")
        assert answer.status == 200, answer.body
        feed = json.loads(answer.body)
        client.after = feed["last_seq"]
        prompts = [entry for entry in feed["events"] if entry["type"] == "your_turn"]
        if not prompts:
            continue
        prompt = prompts[-1]
        game = f"/api/v1/games/{prompt['game']}"
        # The replica that did not serve the last move has the prompt's version, not an older one.
        seen = json.loads(on(web[moves % 2]).call("GET", game).body)
        assert seen["version"] >= prompt["version"], (seen["version"], prompt)
        if seen["version"] != prompt["version"] or not prompt.get("legal_actions"):
            continue  # the bots moved on meanwhile: wait for the next prompt
        action = client.rng.choice(prompt["legal_actions"])
        answer = on(web[1 - moves % 2]).call(
            "POST",
            f"{game}/actions",
            {**action, "expected_version": prompt["version"]},
            {"Idempotency-Key": uuid.uuid4().hex},
        )
        assert answer.status == 200, answer.body
        moved = json.loads(answer.body)["version"]
        # At once, on the other replica: the move is there (its cache did not serve the old state).
        again = json.loads(on(web[moves % 2]).call("GET", game).body)
        assert again["version"] >= moved > prompt["version"]
        moves += 1
    assert moves == 8, "the deal did not give the guest eight turns in 90 s"

    # Moves committed elsewhere (the bots, in the worker) reach a long-poll waiting on an event server.
    log = json.loads(on(web[0]).call("GET", f"{game}/events").body)
    waited: dict = {}

    def wait_on_events() -> None:
        started = time.monotonic()
        waited["answer"] = on(events[1]).call("GET", f"{game}/events?after={log['last_seq']}&wait=20")
        waited["seconds"] = time.monotonic() - started

    waiter = threading.Thread(target=wait_on_events)
    waiter.start()
    waiter.join(timeout=30)
    assert waited["answer"].status == 200 and json.loads(waited["answer"].body)["events"]
    assert waited["seconds"] < 10, waited  # the bots' next moves, not the 20 s wait running out

    # Logged out on one web replica: refused on the other and on both event servers.
    assert on(web[0]).call("POST", "/api/v1/auth/logout", {}).status == 204
    assert on(web[1]).call("GET", "/api/v1/me").status == 401
    for port in events:
        assert on(port).call("GET", "/api/v1/me/events").status == 401


def test_every_fault_is_survived_without_a_500_or_a_lost_action(topology):
    record = Record()
    stop = threading.Event()
    players = [Player(topology.port, record, random.Random(seed)) for seed in range(PLAYERS)]
    threads = [threading.Thread(target=player.run, args=(stop,), daemon=True) for player in players]
    supervisor = threading.Thread(target=topology.supervise, args=(stop,), daemon=True)
    for thread in [*threads, supervisor]:
        thread.start()
    figures: dict[str, float] = {}
    moments: dict[str, float] = {}
    windows: dict[str, tuple[float, float]] = {}  # each fault: from its start to the first move after it
    try:
        wait_until(lambda: len(record.accepted) >= 3 * PLAYERS, timeout=120, what="play under way")

        # Redis killed, then started again.
        start = time.monotonic()
        topology.redis.kill()
        time.sleep(FAULT_SECONDS)
        topology.redis.start()
        wait_until(lambda: _port_open(topology.redis_port), timeout=10, what="redis back")
        figures["redis"] = _resumed_after(record, back := time.monotonic())
        windows["redis"] = (start, back + figures["redis"])

        # PostgreSQL stopped (fast), then started again.
        down = time.monotonic()
        topology.postgres.stop()
        time.sleep(FAULT_SECONDS)
        topology.postgres.start()
        up = time.monotonic()
        moments.update(postgres_down=down, postgres_up=up)
        figures["postgres"] = _resumed_after(record, up)
        windows["postgres"] = (down, up + figures["postgres"])
        # Answered while it was down, or just after it came back to requests that waited on it (a
        # request held by the pool's timeout is answered once PostgreSQL is back): 200 or 503 only.
        while_down = [a for a in record.answers if down + 0.5 < a.at < up + 2]
        assert while_down, "no request was answered while PostgreSQL was down"
        unexpected = [
            (a.method, a.path, a.status, a.body[:300]) for a in while_down if a.status not in (200, 503)
        ]
        assert not unexpected, (unexpected[:10], topology.logs())
        figures["503 while postgres was down"] = sum(a.status == 503 for a in while_down)
        figures["503 after postgres returned"] = sum(a.status == 503 and a.at > up for a in while_down)

        # A web worker, an event server's worker, a Celery worker and the beat killed.
        for name, process in (("web worker", topology.web[0]), ("event server", topology.events[0])):
            for pid in process.children():
                os.kill(pid, signal.SIGKILL)
            figures[name] = _resumed_after(record, start := time.monotonic())
            windows[name] = (start, start + figures[name])
        # A Celery worker and the beat: killed outright; the supervisor starts them again.
        for name, process in (("celery worker", topology.workers[0]), ("beat", topology.beat)):
            process.kill()
            figures[name] = _resumed_after(record, start := time.monotonic())
            windows[name] = (start, start + figures[name])
        time.sleep(FAULT_SECONDS)  # play on after the last fault
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
        if os.environ.get("FAULTS_KEEP"):  # what the clients saw, for a look after a failure
            with open(topology.workdir / "answers.jsonl", "w") as out:
                for a in record.answers:
                    line = {"at": a.at, "sent": a.sent, "method": a.method, "path": a.path}
                    out.write(json.dumps({**line, "status": a.status}) + "\n")
                out.write(json.dumps({"moments": moments, "figures": figures}) + "\n")
        print("\nfigures:", {k: round(v, 2) for k, v in figures.items()})
        # What clients were answered from each fault's start to the first move after its end
        # (status 0: the connection dropped), for docs/deploy.md's table.
        for name, (start, end) in windows.items():
            statuses = sorted(Counter(a.status for a in record.answers if start <= a.at <= end).items())
            print(f"during {name}: {sum(n for _, n in statuses)} answers {dict(statuses)}")

    bad = _errors_are_json(record)
    assert not bad, "\n".join(bad[:20]) + "\n" + topology.logs()
    for fault, seconds in figures.items():
        assert fault.startswith("503") or seconds < 5, f"play resumed {seconds:.1f}s after the {fault}"
    checked = _check_the_database(topology.postgres.url, record)
    assert checked["actions"] >= len(record.accepted)
    print(  # the figures and the answers during each fault were printed above, failed or not
        "\nanswers:",
        len(record.answers),
        "moves accepted:",
        len(record.accepted),
        checked,
        "restarted:",
        topology.restarts,
    )
