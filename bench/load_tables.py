#!/usr/bin/env python
"""N tables of five simulated people at human pace, on today's production roles and on the baseline.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bh_capacity \\
        .venv/bin/python bench/load_tables.py --tables 100 --seconds 60

Runs the same load twice, one run after the other against the same PostgreSQL database (migrated
by this checkout), and prints the headline figures side by side (`--against current` or
`--against baseline` runs one):

* current: this checkout's production roles, `web` (gunicorn gthread, config/gunicorn.py) and
  `events` (gunicorn with uvicorn workers, config/gunicorn_events.py), production settings, their
  default worker counts (`--workers`, `--events-workers`). No proxy runs: each request goes to the
  role deploy/nginx.conf routes its path to (support.EVENT_PATHS), so the figures are the roles' own;
* baseline: the single-server model at `--baseline` (support.BASELINE_COMMIT, extracted with `git
  archive`), its config/gunicorn.py (uvicorn workers, every path on one ASGI application); with
  `--baseline-roles`, the commit's own web and events roles started as today's are (for a baseline
  that has them, such as a previous main: the same serving model, so the difference is the code's).

Each run starts `--tables` one-deal tables with staff `setups`, five users at each. The tables are
created and seated evenly over `--stagger` seconds (20), each one's players acting at once, as real
tables do not all begin in one instant (with `--stagger 0` every deal's opening, when four seats
answer a window together, falls in the same seconds; and a table seated long before its players act
would time out first); measuring begins `--warmup` seconds after the last one was seated. Every
simulated player is what a mobile client does:

* it follows its feed, `GET me/events`, where a `your_turn` entry wakes it up, and the game's log,
  `GET games/{id}/events`, to show the others' plays: with `--follow stream` (the default) each as
  one Server-Sent Events stream (`Accept: text/event-stream`, reconnecting with `Last-Event-ID` when
  the server ends it), with `--follow poll` as long-polls (`?after=..&wait=20`, a new one after
  every answer);
* prompted, it thinks (`--think` s ± `--jitter`, uniform) and posts one of the legal actions its
  `your_turn` entry lists (API 1.2.0; `POST games/{id}/actions` with the entry's version as
  `expected_version`). A `stale_version` answer (the prompt passed: the timer or the trustee answered
  first; before API 1.3.0 also another seat of the same window) sends it to its view
  (`GET games/{id}`) and it retries from there, as a client would. With
  `--answer-from view` it reads its view before every answer, as clients of API 1.1 had to.

With `--afk P` a player lets that share of its prompts pass: the turn timer (`--turn-seconds`, the
tables' `play_seconds` and `prompt_seconds`) runs out, the worker times the seat out and the trustee
plays for it, and the player, seeing its own `trustee` event in the log, takes its seat back
(`POST games/{id}/trustee {"on": false}`, refused once it is locked) as a returning person does.
The timer's lateness is printed as the deadline to the timeout event's first arrival at a follower.

The `worker` role runs beside the servers, from the same tree (`celery -A config worker -B`,
`--worker-concurrency` processes; `--no-worker` leaves it out), so that timers, trustee chains and
the sweep take their share of the machine as they do in production; its CPU is printed apart.

A table whose deal ends fetches `games/{id}/final` and starts a new one-deal table with the same
players, until `--seconds` have passed. Then no new move is sent, and the run is checked: every
accepted move is in the event log exactly once (and nothing else acted but trustees, their seats on
trustee at the time, and the timer answering a prompt that had one legal answer), every ended deal's
final view was served, and no client saw an event twice.

Printed: moves/s and event polls/s (answered long-polls), move latency p50/p95/p99, wake-up delay
(the event row's insert, inside the move's transaction, to the answer reaching a waiting client:
game-log followers and the feed's `your_turn`), errors by kind, the server's CPU per move and per
request (utime + stime of every server process from /proc, web and events apart; the CPU-time
figure to trust on a shared machine), the load generator's own CPU share, and the load average.

Redis db `--redis-db` holds the wake-ups and the worker's broker (flushed after each run). The clients
are aiohttp sessions on uvloop, one per simulated player, as cheap as the generator can be: it
shares the machine it measures. Loopback only; every loop is bounded by `--seconds` and every
request by a timeout.
"""

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import aiohttp
import orjson
import uvloop
from support import (  # bench/support.py (found beside this script)
    BASELINE_COMMIT,
    ROOT,
    Servers,
    baseline_migrations_unknown,
    baseline_tree,
    ensure_database,
    machine_speed_ms,
    percentile,
    process_tree_cpu,
    spawn,
    start_baseline,
    start_current,
)

sys.path.insert(0, str(ROOT))

POLL_WAIT = 20
# A stream sends a comment every EVENTS_SSE_KEEPALIVE (15 s): silence for longer is a dead connection.
STREAM_TIMEOUT = aiohttp.ClientTimeout(total=None, connect=10, sock_read=45)
REQUEST_TIMEOUT = aiohttp.ClientTimeout(total=POLL_WAIT + 15, connect=10)
# Idle connections are dropped before the server's keep-alive of 5 s (config/gunicorn.py) ends
# them: with equal timeouts a request sent on a connection the server is just closing fails, which
# clients avoid the same way (or retry, as OkHttp does for idempotent requests).
KEEPALIVE = 4.0


@dataclass(frozen=True)
class Answer:
    """A whole HTTP answer, read before its connection went back to the pool."""

    status_code: int
    content: bytes

    def json(self):
        return orjson.loads(self.content)

    @property
    def text(self) -> str:
        return self.content.decode(errors="replace")


def player_session() -> aiohttp.ClientSession:
    # Each simulated player has its own session and connections, as each phone does.
    connector = aiohttp.TCPConnector(limit=4, keepalive_timeout=KEEPALIVE)
    return aiohttp.ClientSession(connector=connector, timeout=REQUEST_TIMEOUT)


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


@dataclass
class Stats:
    move_latency: list[float] = field(default_factory=list)
    polls: Counter = field(default_factory=Counter)
    requests: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)
    stale: int = 0
    # (game id, seq, wall time the answer arrived, when its request was sent) per game-log follower,
    # and (user id, seq, arrival) per feed your_turn.
    game_arrivals: list[tuple[int, int, float, float]] = field(default_factory=list)
    feed_arrivals: list[tuple[int, int, float]] = field(default_factory=list)
    duplicates: int = 0
    # game id -> [(version after the move, seat, action dict)]
    accepted: dict[int, list[tuple[int, int, dict]]] = field(default_factory=lambda: defaultdict(list))
    ended: set[int] = field(default_factory=set)
    finals: dict[int, int] = field(default_factory=dict)
    # How late the generator's own event loop ran a 50 ms timer (seconds), sampled while measuring:
    # every latency above includes that much of the generator's own delay.
    loop_lag: list[float] = field(default_factory=list)
    # (game id, seq) of each timeout event -> (its deadline, its first arrival at a follower)
    timeouts: dict[tuple[int, int], tuple[float, float]] = field(default_factory=dict)
    prompts_let_pass: int = 0
    seats_taken_back: int = 0
    trustee_locked: int = 0


@dataclass
class Player:
    user_id: int
    headers: dict
    feed_after: int = 0
    prompts: asyncio.Queue = field(default_factory=asyncio.Queue)


class Run:
    def __init__(self, args, servers: Servers, client: aiohttp.ClientSession, staff_headers: dict):
        self.args = args
        self.servers = servers
        self.client = client
        self.clients: dict[str, aiohttp.ClientSession] = {}
        self.staff_headers = staff_headers
        self.stats = Stats()
        self.stop = asyncio.Event()
        self.measuring = False
        self.rng = random.Random(args.seed)
        self.background: set[asyncio.Task] = set()  # seats being taken back
        self.unseated = args.tables  # tables not yet created and seated for the first time
        self.seated = asyncio.Event()  # ... until none is left

    async def probe_loop_lag(self) -> None:
        while True:
            asked = time.perf_counter()
            await asyncio.sleep(0.05)
            self.stats.loop_lag.append(time.perf_counter() - asked - 0.05)

    async def request(self, kind: str, method: str, url: str, headers: dict, **kwargs) -> Answer | None:
        client = self.clients.get(headers.get("Authorization"), self.client)
        try:
            async with client.request(
                method, self.servers.url(url, method), headers=headers, **kwargs
            ) as answer:
                response = Answer(answer.status, await answer.read())
        except (aiohttp.ClientError, OSError) as exc:
            if not (kind.startswith("poll") and self.stop.is_set()):
                self.stats.errors[f"{kind}: {type(exc).__name__}"] += 1
            return None
        if self.measuring:
            self.stats.requests[kind] += 1
        return response

    async def new_table(self, players: list[Player]) -> int:
        seed = self.rng.randrange(2**62)
        created = await self.request(
            "setup",
            "POST",
            "/tables",
            self.staff_headers,
            json={
                "preset": self.args.preset,
                "deals": 1,
                "setups": [{"seed": seed}],
                "settings": {
                    "play_seconds": self.args.turn_seconds,
                    "prompt_seconds": self.args.turn_seconds,
                },
            },
        )
        if created is None or created.status_code != 201 and created.status_code != 200:
            raise RuntimeError(f"table not created: {created and created.text[:300]}")
        table = created.json()
        for seat, player in enumerate(players):
            joined = await self.request(
                "setup",
                "POST",
                f"/tables/{table['id']}/join",
                player.headers,
                json={"code": table["code"], "seat": seat},
            )
            if joined is None or joined.status_code >= 300:
                raise RuntimeError(f"join refused: {joined and joined.text[:300]}")
        detail = await self.request("setup", "GET", f"/tables/{table['id']}", self.staff_headers)
        return detail.json()["current_game"]

    async def follow_feed(self, player: Player) -> None:
        if self.args.follow == "stream":
            return await self.follow_feed_stream(player)
        while not self.stop.is_set():
            response = await self.request(
                "poll feed",
                "GET",
                "/me/events",
                player.headers,
                params={"after": player.feed_after, "wait": POLL_WAIT},
            )
            if response is None or response.status_code != 200:
                if response is not None:
                    self.stats.errors[f"poll feed: {response.status_code}"] += 1
                await asyncio.sleep(1)
                continue
            arrived = time.time()
            body = response.json()
            if self.measuring:
                self.stats.polls["feed"] += 1
            for event in body["events"]:
                self.feed_entry(player, event, arrived)
            player.feed_after = body["last_seq"]

    def feed_entry(self, player: Player, event: dict, arrived: float) -> None:
        if event["type"] == "your_turn":
            player.prompts.put_nowait((event["game"], event["version"], event.get("legal_actions")))
            if self.measuring:
                self.stats.feed_arrivals.append((player.user_id, event["seq"], arrived))

    async def follow_game(self, player: Player, seat: int, game: int, over: asyncio.Event) -> None:
        if self.args.follow == "stream":
            return await self.follow_game_stream(player, seat, game, over)
        after, seen = 0, set()
        while not over.is_set() and not self.stop.is_set():
            asked = time.time()
            response = await self.request(
                "poll game",
                "GET",
                f"/games/{game}/events",
                player.headers,
                params={"after": after, "wait": POLL_WAIT},
            )
            if response is None or response.status_code != 200:
                if response is not None:
                    self.stats.errors[f"poll game: {response.status_code}"] += 1
                await asyncio.sleep(1)
                continue
            arrived = time.time()
            body = response.json()
            if self.measuring:
                self.stats.polls["game"] += 1
            for event in body["events"]:
                self.game_entry(game, event, arrived, seen, over, asked)
            after = body["last_seq"]

    def game_entry(
        self, game: int, event: dict, arrived: float, seen: set, over: asyncio.Event, asked: float
    ):
        """`asked`: when the request that brought it was sent; an event committed before is no
        wake-up (the log's opening), which wake_delays leaves out."""
        if event["seq"] in seen:
            self.stats.duplicates += 1
        seen.add(event["seq"])
        if self.measuring:
            self.stats.game_arrivals.append((game, event["seq"], arrived, asked))
            if event["type"] == "timeout":
                deadline = datetime.fromisoformat(event["deadline"].replace("Z", "+00:00")).timestamp()
                first = self.stats.timeouts.get((game, event["seq"]), (deadline, arrived))
                self.stats.timeouts[(game, event["seq"])] = (deadline, min(first[1], arrived))
        if event["type"] in ("deal_over", "void"):
            over.set()

    async def stream(self, player: Player, kind: str, url: str, last_id: int, entry) -> int:
        """Follow one Server-Sent Events answer until it ends, as EventSource does: `entry(event,
        arrived, asked)` for each, and the last id seen returned (the next connection's Last-Event-ID)."""
        asked = time.time()
        client = self.clients.get(player.headers["Authorization"], self.client)
        headers = {**player.headers, "Accept": "text/event-stream"}
        if last_id:
            headers["Last-Event-ID"] = str(last_id)
        try:
            async with client.get(self.servers.url(url), headers=headers, timeout=STREAM_TIMEOUT) as response:
                if response.status != 200:
                    self.stats.errors[f"{kind}: {response.status}"] += 1
                    await asyncio.sleep(1)
                    return last_id
                if self.measuring:
                    self.stats.requests[kind] += 1
                fields: dict[str, str] = {}
                async for raw in response.content:
                    line = raw.decode().rstrip("\r\n")
                    if line:
                        if not line.startswith(":"):
                            name, _, value = line.partition(": ")
                            fields[name] = value
                        continue
                    if "data" in fields:
                        last_id = int(fields["id"])
                        entry(orjson.loads(fields["data"]), time.time(), asked)
                    fields = {}
        except (aiohttp.ClientError, OSError) as exc:
            if not self.stop.is_set():
                self.stats.errors[f"{kind}: {type(exc).__name__}"] += 1
                await asyncio.sleep(1)
        return last_id

    async def follow_feed_stream(self, player: Player) -> None:
        def entry(event: dict, arrived: float, asked: float) -> None:
            if self.measuring:
                self.stats.polls["feed"] += 1
            self.feed_entry(player, event, arrived)

        while not self.stop.is_set():
            player.feed_after = await self.stream(
                player, "stream feed", "/me/events", player.feed_after, entry
            )

    async def follow_game_stream(self, player: Player, seat: int, game: int, over: asyncio.Event) -> None:
        seen: set[int] = set()
        after = 0

        def entry(event: dict, arrived: float, asked: float) -> None:
            if self.measuring:
                self.stats.polls["game"] += 1
            self.game_entry(game, event, arrived, seen, over, asked)
            if event["type"] == "trustee" and event["seat"] == seat and event["on"] and not over.is_set():
                self.background.add(task := asyncio.create_task(self.take_seat_back(player, game)))
                task.add_done_callback(self.background.discard)

        while not over.is_set() and not self.stop.is_set():
            after = await self.stream(player, "stream game", f"/games/{game}/events", after, entry)

    async def act(self, player: Player, seat: int, game: int, over: asyncio.Event) -> None:
        """Wait for a prompt of this game, think, read the view, post a legal action."""
        while not over.is_set() and not self.stop.is_set():
            try:
                prompt_game, version, legal = await asyncio.wait_for(player.prompts.get(), timeout=1)
            except TimeoutError:
                continue
            if prompt_game != game:
                continue
            if self.rng.random() < self.args.afk:
                self.stats.prompts_let_pass += self.measuring
                continue  # away: the turn timer runs out, and the trustee plays
            think = self.args.think + self.rng.uniform(-self.args.jitter, self.args.jitter)
            await asyncio.sleep(max(0.0, think))
            # Answered from the prompt's own legal actions (API 1.2.0), unless --answer-from view.
            # A stale_version answer (the prompt passed meanwhile) is re-read from the view and
            # retried while the player is still asked to act, as a client does; giving up after
            # three let its timer run out, more timeouts than --afk asked for.
            if self.args.answer_from == "entry" and legal:
                if not await self.post_move(player, seat, game, over, version, legal):
                    continue
            for _ in range(20):
                if self.stop.is_set():
                    return
                if not await self.move_once(player, seat, game, over):
                    break

    async def take_seat_back(self, player: Player, game: int) -> None:
        """Back after a timeout: the seat is taken off trustee (refused from the fourth entry)."""
        await asyncio.sleep(max(0.0, self.args.think + self.rng.uniform(-self.args.jitter, self.args.jitter)))
        if self.stop.is_set():
            return
        response = await self.request(
            "trustee", "POST", f"/games/{game}/trustee", player.headers, json={"on": False}
        )
        if response is None:
            return
        code = response.json().get("code") if response.status_code >= 400 else None
        if response.status_code == 200:
            self.stats.seats_taken_back += self.measuring
        elif code == "trustee_locked":
            self.stats.trustee_locked += self.measuring
        elif code != "game_over":
            self.stats.errors[f"trustee: {response.status_code} {response.text[:80]}"] += 1

    async def move_once(self, player: Player, seat: int, game: int, over: asyncio.Event) -> bool:
        """One read-and-post; True when the post met a stale version and should be retried."""
        viewed = await self.request("view", "GET", f"/games/{game}", player.headers)
        if viewed is None or viewed.status_code != 200:
            if viewed is not None:
                self.stats.errors[f"view: {viewed.status_code}"] += 1
            return False
        view = viewed.json()
        if view["phase"] in ("over", "void"):
            over.set()
            return False
        legal = view.get("legal_actions") or []
        return await self.post_move(player, seat, game, over, view["version"], legal)

    async def post_move(
        self, player: Player, seat: int, game: int, over: asyncio.Event, version: int, legal: list[dict]
    ) -> bool:
        """Post one of these legal actions at this version; True when it met a stale version."""
        if not legal:
            return False
        plays = [a for a in legal if a["type"] == "play"]
        action = self.rng.choice(plays) if plays and self.rng.random() < 0.8 else self.rng.choice(legal)
        payload = {"type": action["type"], "expected_version": version}
        if action.get("cards"):
            payload["cards"] = action["cards"]
        if action.get("card") is not None:
            payload["card"] = action["card"]
        started = time.perf_counter()
        response = await self.request("move", "POST", f"/games/{game}/actions", player.headers, json=payload)
        elapsed = time.perf_counter() - started
        if response is None:
            return False
        if response.status_code == 200:
            body = response.json()
            self.stats.accepted[game].append((body["version"], seat, action))
            if self.measuring:
                self.stats.move_latency.append(elapsed)
            if body["phase"] in ("over", "void"):
                over.set()
            return False
        if response.status_code == 409 and response.json().get("code") == "stale_version":
            self.stats.stale += 1
            return True
        if response.status_code == 409 and response.json().get("code") == "game_over":
            over.set()  # the trustees ended the deal first: the client shows the result
            return False
        self.stats.errors[f"move: {response.status_code} {response.text[:80]}"] += 1
        return False

    async def table_slot(self, players: list[Player], delay: float = 0.0) -> None:
        # Real tables do not all begin at one instant: each is seated and starts playing `delay`
        # seconds in.
        await asyncio.sleep(delay)
        try:
            game = await self.seat(players)
        finally:
            self.unseated -= 1
            if self.unseated == 0:
                self.seated.set()
        while game is not None:
            over = asyncio.Event()
            followers = [
                asyncio.create_task(self.follow_game(p, s, game, over)) for s, p in enumerate(players)
            ]
            actors = [asyncio.create_task(self.act(p, s, game, over)) for s, p in enumerate(players)]
            await asyncio.gather(*actors)
            for task in followers:
                task.cancel()
            await asyncio.gather(*followers, return_exceptions=True)
            if not over.is_set():
                return
            self.stats.ended.add(game)
            final = await self.request("final", "GET", f"/games/{game}/final", players[0].headers)
            self.stats.finals[game] = final.status_code if final is not None else 0
            if self.stop.is_set():
                return
            game = await self.seat(players)

    async def seat(self, players: list[Player]) -> int | None:
        """A new one-deal table for these players (its game id), or None, counted as an error."""
        try:
            return await self.new_table(players)
        except RuntimeError as refused:
            self.stats.errors[f"setup: {str(refused)[:80]}"] += 1
            return None


def check_log(stats: Stats) -> list[str]:
    """Every accepted move is in the event log exactly once, and every other action recorded is a
    trustee's (its seat on trustee then; a player may also act for a seat on trustee) or the timer's
    (a prompt with one legal answer is answered at its timeout, the seat staying off trustee:
    docs/rules.md §5; its answers are the rows right after the `timeout` row)."""
    from games.models import Event

    def key(seat, action) -> tuple:
        return (seat, action["type"], tuple(sorted(action.get("cards") or [])), action.get("card"))

    problems = []
    for game, moves in stats.accepted.items():
        # By seat and action, not by version: a move's answer gives the version after the trustee
        # actions that followed it in the same transaction, which its own row does not have.
        every, unattended, on_trustee, timer_answers = Counter(), Counter(), [False] * 5, False
        for type_, data, action in (
            Event.objects.filter(game_id=game).order_by("seq").values_list("type", "data", "action")
        ):
            if type_ == "trustee":
                on_trustee[data["seat"]] = data["on"]
            elif action is not None:
                every[key(*action)] += 1
                if not on_trustee[action[0]] and not timer_answers:
                    unattended[key(*action)] += 1
            # The timer answers the one seat prompted, or every forced seat of a window (`answer` rows).
            timer_answers = type_ == "timeout" or (timer_answers and type_ == "answer")
        sent = Counter(key(seat, action) for _, seat, action in moves)
        # Each accepted move is logged; an action logged while its seat was attended was sent.
        missing, extra = sent - every, unattended - sent
        if missing or extra:
            problems.append(
                f"game {game}: log {sum(every.values())} actions, accepted {len(moves)}, "
                f"missing {missing}, extra {extra}"[:300]
            )
    for game in stats.ended:
        if stats.finals.get(game) != 200:
            problems.append(f"game {game} ended but final view answered {stats.finals.get(game)}")
    return problems


def wake_delays(stats: Stats) -> tuple[list[float], list[float]]:
    from accounts.models import FeedEvent
    from games.models import Event

    created = {}
    games = {g for g, _, _, _ in stats.game_arrivals}
    for game, seq, at in Event.objects.filter(game_id__in=games).values_list("game_id", "seq", "created_at"):
        created[(game, seq)] = at.timestamp()
    # Events committed before the request that brought them (a log's opening) are no wake-ups.
    game_delays = [
        t - created[(g, s)] for g, s, t, asked in stats.game_arrivals if created.get((g, s), 0) >= asked
    ]
    users = {u for u, _, _ in stats.feed_arrivals}
    feed_created = {
        (u, s): at.timestamp()
        for u, s, at in FeedEvent.objects.filter(user_id__in=users).values_list(
            "user_id", "seq", "created_at"
        )
    }
    feed_delays = [t - feed_created[(u, s)] for u, s, t in stats.feed_arrivals if (u, s) in feed_created]
    return game_delays, feed_delays


def ms(values: list[float]) -> str:
    return (
        f"p50 {percentile(values, 0.5) * 1e3:7.1f}  p95 {percentile(values, 0.95) * 1e3:7.1f}  "
        f"p99 {percentile(values, 0.99) * 1e3:7.1f} ms  (n={len(values)})"
    )


async def drive(
    args, servers: Servers, staff_token: str, tokens: list[tuple[int, str]], worker_pid: int | None
) -> dict:
    """One measured run against `servers`: its report printed, its headline figures returned."""
    staff_connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=KEEPALIVE)
    async with aiohttp.ClientSession(connector=staff_connector, timeout=REQUEST_TIMEOUT) as client:
        run = Run(args, servers, client, {"Authorization": f"Bearer {staff_token}"})
        players = [Player(user_id=uid, headers={"Authorization": f"Bearer {tok}"}) for uid, tok in tokens]
        run.clients = {p.headers["Authorization"]: player_session() for p in players}
        tables = [players[i * 5 : (i + 1) * 5] for i in range(args.tables)]
        setup_started = time.perf_counter()
        feeds = [asyncio.create_task(run.follow_feed(p)) for p in players]
        # Each table is created and seated at its own moment of the stagger, its players acting at
        # once, as a table that fills does: a deal's turn timer runs from its first prompt, so a table
        # seated long before its players start times out before anyone acts.
        slots = [
            asyncio.create_task(run.table_slot(t, delay=i * args.stagger / len(tables)))
            for i, t in enumerate(tables)
        ]
        await run.seated.wait()
        print(f"setup: {args.tables} tables seated over {time.perf_counter() - setup_started:.1f} s")

        await asyncio.sleep(min(args.warmup, args.seconds / 4))
        run.measuring = True
        lag_probe = asyncio.create_task(run.probe_loop_lag())
        load_before = load_average()
        roles0 = [process_tree_cpu(p.pid) for p in servers.processes]
        own0, wall0 = os.times(), time.perf_counter()
        worker_cpu0 = process_tree_cpu(worker_pid) if worker_pid else 0.0
        await asyncio.sleep(args.seconds)
        roles1 = [process_tree_cpu(p.pid) for p in servers.processes]
        own1, wall1 = os.times(), time.perf_counter()
        worker_cpu1 = process_tree_cpu(worker_pid) if worker_pid else 0.0
        load_after = load_average()
        run.measuring = False
        lag_probe.cancel()
        run.stop.set()
        await asyncio.wait_for(asyncio.gather(*slots, return_exceptions=True), timeout=60)
        await asyncio.gather(*run.background, return_exceptions=True)
        for task in feeds:
            task.cancel()
        await asyncio.gather(*feeds, return_exceptions=True)
        await asyncio.gather(*(own.close() for own in run.clients.values()), return_exceptions=True)

    stats = run.stats
    wall = wall1 - wall0
    moves = len(stats.move_latency)
    polls = sum(stats.polls.values())
    role_cpu = [after - before for before, after in zip(roles0, roles1, strict=True)]
    server_cpu = sum(role_cpu)
    own_cpu = (own1.user + own1.system) - (own0.user + own0.system)
    game_delays, feed_delays = await asyncio.to_thread(wake_delays, stats)
    problems = await asyncio.to_thread(check_log, stats)
    total_requests = sum(stats.requests.values())
    print(
        f"== {servers.name}: clients follow by {args.follow}, preset {args.preset}, "
        f"{args.tables} tables started over {args.stagger:.0f} s, think {args.think}±{args.jitter} s, "
        f"turn timer {args.turn_seconds} s, prompts let pass {args.afk:.0%}, "
        f"worker {'off' if args.no_worker else f'on ({args.worker_concurrency} processes)'}, "
        f"measured {wall:.0f} s"
    )
    print(f"load average (1/5/15 min) before {load_before}, after {load_after}")
    print(
        f"moves: {moves / wall:7.1f}/s   events delivered ({args.follow}): {polls / wall:7.1f}/s "
        f"(game {stats.polls['game']}, feed {stats.polls['feed']})   requests: {total_requests / wall:.1f}/s"
    )
    print(f"move latency:            {ms(stats.move_latency)}")
    print(f"wake-up, game followers: {ms(game_delays)}")
    print(f"wake-up, feed your_turn: {ms(feed_delays)}")
    if moves:
        split = ""
        if len(role_cpu) == 2:
            split = f" (web {role_cpu[0]:.1f} s, events {role_cpu[1]:.1f} s)"
        print(
            f"server CPU: {server_cpu:.1f} s{split} = {server_cpu / wall * 100:.0f}% of one core; "
            f"{server_cpu / moves * 1e3:.1f} ms per move (all its requests and pushes: view, logs, feed), "
            f"{server_cpu / max(total_requests, 1) * 1e3:.2f} ms per request"
        )
    print(
        f"load generator CPU: {own_cpu:.1f} s = {own_cpu / wall * 100:.0f}% of one core "
        f"({own_cpu / max(total_requests, 1) * 1e3:.2f} ms per request); its event loop's lag "
        f"(included in every latency above): {ms(stats.loop_lag)}"
    )
    worker_cpu = worker_cpu1 - worker_cpu0
    if worker_pid:
        print(f"worker CPU: {worker_cpu:.1f} s = {worker_cpu / wall * 100:.0f}% of one core")
    lateness = [arrived - deadline for deadline, arrived in stats.timeouts.values()]
    if args.afk:
        print(
            f"timer lateness (deadline to the timeout event's first arrival at a follower): {ms(lateness)}; "
            f"prompts let pass {stats.prompts_let_pass}, seats taken back {stats.seats_taken_back}, "
            f"refused as locked {stats.trustee_locked}"
        )
    print(f"requests by kind: {dict(stats.requests)}")
    print(f"stale_version retries: {stats.stale}   duplicated events seen by a client: {stats.duplicates}")
    print(
        f"deals ended: {len(stats.ended)}, final views 200: "
        f"{sum(1 for g in stats.ended if stats.finals.get(g) == 200)}"
    )
    print(
        f"accepted moves checked against the event log: {sum(len(m) for m in stats.accepted.values())} "
        f"in {len(stats.accepted)} games, problems: {len(problems)}"
    )
    for problem in problems[:10]:
        print("  ", problem)
    print(f"errors: {sum(stats.errors.values())} {dict(stats.errors) if stats.errors else ''}")
    p99 = percentile(stats.move_latency, 0.99)
    holds = moves > 0 and p99 < 0.3 and not stats.errors and not problems and not stats.duplicates
    print(
        f"verdict: p99 move latency {p99 * 1e3:.0f} ms < 300 ms with zero errors and an exact log: "
        f"{'HOLDS' if holds else 'FAILS'}"
    )
    if lateness:
        late = percentile(lateness, 0.99)
        print(
            f"verdict: p99 timer lateness {late * 1e3:.0f} ms < 100 ms: {'HOLDS' if late < 0.1 else 'FAILS'}"
        )
    return {
        "moves/s": moves / wall,
        "move p50 ms": percentile(stats.move_latency, 0.5) * 1e3,
        "move p99 ms": p99 * 1e3,
        "wake-up p99 ms (game)": percentile(game_delays, 0.99) * 1e3,
        "server CPU % of a core": server_cpu / wall * 100,
        "server CPU ms/move": server_cpu / moves * 1e3 if moves else float("nan"),
        "server CPU ms/request": server_cpu / max(total_requests, 1) * 1e3,
        "worker CPU ms/move": worker_cpu / moves * 1e3 if moves and worker_pid else float("nan"),
        "timer lateness p99 ms": percentile(lateness, 0.99) * 1e3,
        "errors": sum(stats.errors.values()),
        "log problems": len(problems) + stats.duplicates,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60, help="measured time (after the warm-up)")
    parser.add_argument("--warmup", type=float, default=10, help="after the last table started")
    parser.add_argument(
        "--stagger",
        type=float,
        default=20,
        help="tables start evenly over this many seconds (0: all at once, every deal's opening together)",
    )
    parser.add_argument("--think", type=float, default=3.0)
    parser.add_argument(
        "--answer-from",
        choices=["entry", "view"],
        default="entry",
        help="answer a prompt from its your_turn entry's legal actions (API 1.2.0), or read the view first",
    )
    parser.add_argument("--jitter", type=float, default=1.0)
    parser.add_argument(
        "--follow",
        choices=["stream", "poll"],
        default="stream",
        help="how clients follow their feed and game logs: Server-Sent Events streams, or long-polls",
    )
    parser.add_argument(
        "--afk", type=float, default=0.0, help="share of prompts a player lets pass (its turn timer runs out)"
    )
    parser.add_argument(
        "--turn-seconds", type=int, default=15, help="the tables' play_seconds and prompt_seconds"
    )
    parser.add_argument("--no-worker", action="store_true", help="no Celery worker (timers never fire)")
    parser.add_argument("--worker-concurrency", type=int, default=2)
    parser.add_argument("--preset", default="weihai")
    parser.add_argument(
        "--against",
        choices=["both", "current", "baseline"],
        default="both",
        help="today's roles, the baseline (--baseline), or both one after the other (the default)",
    )
    parser.add_argument(
        "--baseline",
        default=BASELINE_COMMIT,
        help="commit measured beside (default: the single-server model)",
    )
    parser.add_argument(
        "--baseline-roles",
        action="store_true",
        help="serve the baseline by its own web and events roles, as today's (a baseline that has them)",
    )
    parser.add_argument("--workers", type=int, default=0, help="web processes (default: the role's config)")
    parser.add_argument(
        "--events-workers", type=int, default=0, help="events processes (default: config/gunicorn_events.py)"
    )
    parser.add_argument(
        "--pool", type=int, default=None, help="DB_POOL_MAX_SIZE per process (default: the role's)"
    )
    parser.add_argument("--redis-db", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not 1 <= args.tables <= 1000 or not 0 < args.seconds <= 1800:
        sys.exit("--tables 1..1000 and --seconds up to 1800")
    if args.afk and args.no_worker:
        sys.exit("--afk needs the worker: its timers are what acts for an absent player")

    database_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bh_capacity")
    if not database_url.startswith("postgres"):
        sys.exit("bench/load_tables.py measures PostgreSQL: set DATABASE_URL=postgres://...")
    ensure_database(database_url)
    redis_url = f"redis://127.0.0.1:6379/{args.redis_db}"
    metrics_dir = tempfile.mkdtemp(prefix="bh-load-metrics-")
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": "bench-load-tables-not-a-secret",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": redis_url,
        "PROMETHEUS_MULTIPROC_DIR": metrics_dir,
        "AUTH_THROTTLE_RATE": "100000/min",
    }
    if args.pool is not None:
        env["DB_POOL_MAX_SIZE"] = str(args.pool)
    os.environ.update(env)
    # One database for every run, migrated by this checkout (the baseline's tables are a subset of
    # its tables: a column added since is nullable or has a database default).
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True
    )

    import django

    django.setup()

    targets = ["current", "baseline"] if args.against == "both" else [args.against]
    if "baseline" in targets:
        tree = baseline_tree(args.baseline)  # extracted before any server starts
        if unknown := baseline_migrations_unknown(tree):
            sys.exit(f"{args.baseline} needs migrations this checkout has not got: {', '.join(unknown)}")
        if args.baseline_roles and not (tree / "config" / "gunicorn_events.py").exists():
            sys.exit(f"--baseline-roles: {args.baseline} has no events role (config/gunicorn_events.py)")
    figures = {}
    for target in targets:
        figures[target] = run_once(args, target, env, metrics_dir, redis_url)
    if len(figures) == 2:
        served = "its own web, events and worker roles" if args.baseline_roles else "one server"
        print("== side by side (one run after the other; current = web gthread + events roles, the client")
        print(f"   routing by path as deploy/nginx.conf does; baseline = commit {args.baseline}, {served})")
        print(f"{'':<26}{'current':>12}{'baseline':>12}")
        for name in figures["current"]:
            print(f"{name:<26}{figures['current'][name]:12.1f}{figures['baseline'][name]:12.1f}")


def run_once(args, target: str, env: dict, metrics_dir: str, redis_url: str) -> dict:
    from accounts.models import User
    from accounts.services import token_create
    from games.models import Game, GameStatus

    # Deals an earlier run left running (its clients stopped mid-deal): this run's worker would sweep
    # and auto-play them all, on this run's clock.
    Game.objects.filter(status=GameStatus.RUNNING).update(status=GameStatus.ABORTED, deadline=None)
    if target == "current":
        servers = start_current(env, web_workers=args.workers, events_workers=args.events_workers)
        tree = ROOT
    else:
        tree = baseline_tree(args.baseline)
        if args.baseline_roles:
            roles = {"web_workers": args.workers, "events_workers": args.events_workers}
            servers = start_current(env, **roles, root=tree, name=f"baseline {args.baseline} (its roles)")
        else:
            servers = start_baseline(env, server="gunicorn", web_workers=args.workers, commit=args.baseline)
    worker = None
    log = open(servers.log.with_suffix(".worker.log"), "w")  # noqa: SIM115 - until the worker stops
    if not args.no_worker:
        # The worker role as the production entrypoint runs it, with an embedded beat (the sweep),
        # from the same tree as the servers.
        worker = spawn(
            [
                sys.executable, "-m", "celery", "-A", "config", "worker", "-B",
                "-s", str(Path(metrics_dir) / f"beat-schedule-{target}"),
                f"--concurrency={args.worker_concurrency}",
                "--without-gossip", "--without-mingle", "--loglevel=WARNING",
            ],
            tree, env, log,
        )  # fmt: skip
    try:
        servers.wait_ready()
        stamp = f"{int(time.time())}{random.randrange(1000)}"
        staff = User.objects.create_user(username=f"load-staff-{stamp}", password="x" * 12, is_staff=True)
        users = User.objects.bulk_create([User(username=f"load-{stamp}-{i}") for i in range(args.tables * 5)])
        tokens = [(user.pk, token_create(user=user)) for user in users]
        speed_before = machine_speed_ms()
        # uvloop, as the server uses: the generator's own event loop is part of every latency it measures.
        figures = uvloop.run(
            drive(args, servers, token_create(user=staff), tokens, worker.pid if worker else None)
        )
        print(
            f"machine speed (support.machine_speed_ms, lower is faster): {speed_before:.1f} ms before "
            f"the run, {machine_speed_ms():.1f} ms after"
        )
        print(f"server log: {servers.log}")
        return figures
    finally:
        servers.stop()
        if worker is not None:
            worker.terminate()
            worker.wait(timeout=30)
        log.close()
        import redis

        # The deadline tasks of the run's deals, which no worker will run; the index is the bench's.
        redis.Redis.from_url(redis_url).flushdb()


if __name__ == "__main__":
    main()
