#!/usr/bin/env python
"""What a phone spends to come back: requests, bytes and its own time to its first accepted move.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bh_recovery \\
        .venv/bin/python bench/phone_recovery.py --deals 3

In one process (Django's test client through the whole middleware and DRF stack, as bench/move_costs.py;
no HTTP server), against one database migrated by this checkout. A phone player sits at a weihai table
with four scripted players (their requests are not counted). It is prompted, then:

* `away 35 s` / `away 90 s`: the app goes to the background. Its deadline passes (the timer puts the
  seat on 托管, which answers for it) and the others play on, one move every `--pace` seconds (3),
  for the rest of the absence;
* `reinstall, registered`: the app is reinstalled while prompted; the player signs in again with his
  password (`POST auth/token`);
* `reinstall, upgraded guest`: the same for a guest who had upgraded in place (`POST auth/upgrade`);
* `outage 30 s`: the server is down 30 s while the phone is prompted (its timers' heartbeat and the
  deadline are 30 s older when it comes back: games/clock.py moves the deadline on).

Time is simulated as the tests do it (tests/games/test_timers.py, test_clock.py): a deadline, or the
timers' heartbeat, is moved into the past in the database and the timer's service is called as its task
would call it. Nothing waits for real.

Then the phone recovers, by each of two procedures, each on its own table dealt from the same seed
with the same moves of the others (so both meet the same situation):

* baseline: what docs/client-guide.md §5 "Reconnecting" told a client at commit e4440d1 (main before
  the feed's new entries): `GET me/active`, `GET games/{id}` (whose `trustee` shows its seat on 托管:
  `POST games/{id}/trustee {"on": false}`, §8), the deal's log from the last seq it kept (from 0 after
  a reinstall) and the feed from its cursor; when not prompted, a long-poll of the log and a view per
  change, as §3 says. It runs against this checkout's server: the server's answers are the same,
  only the procedure differs (what the old server's feed did not say, this client never read);
* current: docs/client-guide.md §4 "Your feed": read the feed from the cursor it kept, and react to
  its entries alone (`trustee` on: take the seat back, whose answer is the view with its legal
  actions; an open `your_turn`: answer it; else wait on the feed). After a reinstall it has no
  cursor: `GET me/active`, then its view, as before.

Printed per scenario and procedure: requests and bytes (request bodies plus response bodies; headers
not counted) up to and including the first accepted move, the phone's own time in those requests
(median of `--deals` deals), and the outcome (`same table`, or `table lost` when the deal ended with
the seat on 托管 and the table dissolved, docs/rules.md §5: then there is no first move to make).
Loopback only; bounded by --deals and the deal's length.
"""

import argparse
import json
import logging
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from support import django_in_process  # bench/support.py (found beside this script)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SCENARIOS = ("away 35 s", "away 90 s", "reinstall, registered", "reinstall, upgraded guest", "outage 30 s")
PROCEDURES = ("baseline", "current")
PASSWORD = "recovery-bench-9"


@dataclass
class Phone:
    """The phone's HTTP client, counting what it spends, and what it kept across the absence."""

    client: object
    seat: int
    game: int
    requests: int = 0
    bytes: int = 0
    seconds: float = 0.0
    feed_after: int = 0
    log_after: int = 0
    turn: dict | None = None  # the last `your_turn` not closed
    counting: bool = False
    username: str = ""
    made: list[str] = field(default_factory=list)  # the counted requests, as "METHOD path"

    def call(self, method: str, path: str, body: dict | None = None, ok=(200, 201)):
        data = json.dumps(body) if body is not None else None
        started = time.perf_counter()
        if method == "GET":
            response = self.client.get(f"/api/v1/{path}")
        else:
            response = self.client.generic(method, f"/api/v1/{path}", data or "", "application/json")
        if self.counting:
            self.seconds += time.perf_counter() - started
            self.requests += 1
            self.bytes += len(data or "") + len(response.content)
            self.made.append(f"{method} {path} {response.status_code}")
        if response.status_code not in ok:
            raise RuntimeError(f"{method} {path}: {response.status_code} {response.content[:300]}")
        return response.status_code, response.json()

    def feed(self) -> list[dict]:
        _, page = self.call("GET", f"me/events?after={self.feed_after}")
        self.feed_after = page["last_seq"]
        for entry in page["events"]:
            if entry["type"] == "your_turn":
                self.turn = entry
            elif entry["type"] == "prompt_closed" and self.turn and entry["version"] > self.turn["version"]:
                self.turn = None
            elif entry["type"] == "deal_started":
                self.game, self.turn = entry["game"], None
        return page["events"]

    def post_action(self, action: dict, version: int) -> bool:
        body = {k: v for k, v in action.items() if v not in (None, [])}
        status, _ = self.call("POST", f"games/{self.game}/actions", {**body, "expected_version": version},
                              ok=(200, 409))  # fmt: skip
        return status == 200


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deals", type=int, default=3, help="deals per scenario and procedure")
    parser.add_argument("--pace", type=float, default=3.0, help="seconds per move of the others")
    parser.add_argument("--redis-db", type=int, default=13)
    parser.add_argument("--show", action="store_true", help="print each recovery's requests too")
    args = parser.parse_args()
    database_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bh_recovery")
    if not database_url.startswith("postgres"):
        sys.exit("bench/phone_recovery.py needs PostgreSQL: set DATABASE_URL=postgres://...")
    redis_url = f"redis://127.0.0.1:6379/{args.redis_db}"
    # Sign-ins and guests of the whole run come from one address.
    unthrottled = {"AUTH_THROTTLE_RATE": "100000/min", "GUEST_THROTTLE_RATE": "100000/min"}
    django_in_process(database_url=database_url, redis_url=redis_url, env=unthrottled)
    import redis

    # The simulated outages move every running deal's deadline on (games/clock.py warns of it).
    logging.getLogger("games.clock").setLevel(logging.ERROR)

    try:
        results = _run(args)
    finally:
        # The tasks the run sent (no worker reads them) and its wake-ups: gone with the run.
        redis.Redis.from_url(redis_url).flushdb()
    _print(results, args)


def _run(args) -> dict:
    from django.test import Client
    from django.utils import timezone

    from accounts.models import User
    from accounts.services import token_create
    from games import clock, engine, selectors, services
    from games.models import Game, GameStatus, ServiceHeartbeat

    stamp = f"{int(time.time())}{random.randrange(1000)}"
    numbered = iter(range(10**6))

    def client_for(user) -> Client:
        return Client(headers={"authorization": f"Bearer {token_create(user=user)}"})

    staff = client_for(
        User.objects.create_user(username=f"rec-staff-{stamp}", password=PASSWORD, is_staff=True)
    )

    def game_row(game_id: int) -> Game:
        return Game.objects.select_related("table").get(pk=game_id)

    def sit(scenario: str, seed: int) -> tuple[Phone, list, int]:
        """A table dealt from `seed`; the phone at seat 0 (a registered user, or an upgraded guest)."""
        if scenario == "reinstall, upgraded guest":
            guest = Client()
            token = guest.post("/api/v1/auth/guest", {}, content_type="application/json").json()["token"]
            phone_client = Client(headers={"authorization": f"Bearer {token}"})
            name = f"rec-{stamp}-{next(numbered)}"
            upgraded = phone_client.post(
                "/api/v1/auth/upgrade",
                {"username": name, "password": PASSWORD},
                content_type="application/json",
            )
            assert upgraded.status_code == 200, upgraded.content
            phone_client = Client(headers={"authorization": f"Bearer {upgraded.json()['token']}"})
        else:
            name = f"rec-{stamp}-{next(numbered)}"
            phone_client = client_for(User.objects.create_user(username=name, password=PASSWORD))
        others = [
            client_for(User.objects.create_user(username=f"rec-{stamp}-{next(numbered)}")) for _ in range(4)
        ]
        table = staff.post(
            "/api/v1/tables",
            {"preset": "weihai", "setups": [{"seed": seed}]},
            content_type="application/json",
        ).json()
        for seat, client in enumerate([phone_client, *others]):
            joined = client.post(
                f"/api/v1/tables/{table['id']}/join", {"code": table["code"], "seat": seat},
                content_type="application/json",
            )  # fmt: skip
            assert joined.status_code == 200, joined.content
        game = staff.get(f"/api/v1/tables/{table['id']}").json()["current_game"]
        phone = Phone(client=phone_client, seat=0, game=game, username=name)
        return phone, [phone_client, *others], table["id"]

    def others_move(clients, phone: Phone, rng: random.Random, moves: int | None) -> int:
        """The others answer (one random legal action each), `moves` times or until the phone is
        prompted off 托管; the phone's seat on 托管 is answered by the server. Returns moves made."""
        made = 0
        while moves is None or made < moves:
            game = game_row(phone.game)
            if game.status != GameStatus.RUNNING:
                return made
            state = selectors.game_state(game=game)
            prompted = engine.to_act(state)
            if phone.seat in prompted and not game.trustee[phone.seat]:
                if moves is None:
                    return made
            seats = [seat for seat in prompted if seat != phone.seat]
            if not seats:
                return made  # only the phone is asked
            seat = seats[0]
            legal = engine.legal_actions(state, seat)
            plays = [a for a in legal if a.type == "play"]
            action = rng.choice(plays) if plays and rng.random() < 0.8 else rng.choice(legal)
            payload = {k: v for k, v in engine.action_to_dict(action).items() if v not in (None, [])}
            answer = clients[seat].post(
                f"/api/v1/games/{phone.game}/actions", {**payload, "expected_version": game.version},
                content_type="application/json",
            )  # fmt: skip
            assert answer.status_code == 200, answer.content[:300]
            made += 1
        return made

    def to_the_phones_turn(phone: Phone, clients, rng) -> None:
        """Play until the phone is asked in play with a choice (a timeout then puts it on 托管); it
        answers its earlier prompts from its feed, as it would in the foreground, and keeps its
        cursors."""
        for _ in range(300):
            others_move(clients, phone, rng, None)
            phone.feed()
            state = selectors.game_state(game=game_row(phone.game))
            asked = phone.seat in engine.to_act(state)
            if asked and state.phase == "play" and len(engine.legal_actions(state, phone.seat)) > 1:
                break
            if asked and phone.turn is not None:
                assert phone.post_action(phone.turn["legal_actions"][0], phone.turn["version"])
                phone.turn = None
        else:
            raise RuntimeError("the phone was never asked in play")
        _, log = phone.call("GET", f"games/{phone.game}/events?after={phone.log_after}")
        phone.log_after = log["last_seq"]

    def time_out(phone: Phone) -> None:
        # The beat ticks the timers' clock every few seconds; here nothing else does: without a tick
        # now, the expiry would take the bench's own pauses for an outage and move the deadline on.
        clock.timers_clock_tick()
        game = game_row(phone.game)
        Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        if not services.game_deadline_expire(game_id=game.pk, version=game.version):
            raise RuntimeError("the phone's deadline did not expire")

    def away(phone: Phone, clients, rng, seconds: float) -> None:
        play_seconds = game_row(phone.game).table.play_seconds
        time_out(phone)
        others_move(clients, phone, rng, int((seconds - play_seconds) / args.pace))

    def outage(phone: Phone, seconds: float) -> None:
        # Down for `seconds`: the timers' heartbeat and the deadline are that much older on return;
        # the timer's first tick moves the deadline on by the time lost (games/clock.py).
        clock.timers_clock_tick()  # the heartbeat exists: the outage is measured from it
        then = timezone.now() - timedelta(seconds=seconds)
        ServiceHeartbeat.objects.update(at=then)
        game = game_row(phone.game)
        Game.objects.filter(pk=game.pk).update(deadline=game.deadline - timedelta(seconds=seconds))
        services.games_deadlines_sweep()

    def reinstall(phone: Phone) -> None:
        phone.client = Client()  # no token, no cursors, no prompt: a new install knows nothing
        phone.feed_after = phone.log_after = 0
        phone.turn = None

    def sign_in(phone: Phone) -> None:
        _, body = phone.call("POST", "auth/token", {"username": phone.username, "password": PASSWORD})
        phone.client = Client(headers={"authorization": f"Bearer {body['token']}"})

    def rejoin(phone: Phone, reinstalled: bool) -> dict | None:
        """`GET me/active` (signing in first after a reinstall); None when the phone sits in no
        running deal."""
        if reinstalled:
            sign_in(phone)
        _, active = phone.call("GET", "me/active")
        if not active["tables"] or active["tables"][0]["game"] is None:
            return None
        phone.game = active["tables"][0]["game"]
        return active

    def recover_baseline(phone: Phone, clients, rng, reinstalled: bool) -> str:
        active = rejoin(phone, reinstalled)
        if active is None:
            return "table lost"
        _, view = phone.call("GET", f"games/{phone.game}")
        _, log = phone.call("GET", f"games/{phone.game}/events?after={phone.log_after}")
        phone.log_after = log["last_seq"]
        phone.feed_after = active["feed_last_seq"] if reinstalled else phone.feed_after
        phone.feed()
        for _ in range(200):
            if view["trustee"][phone.seat]:
                status, view = phone.call("POST", f"games/{phone.game}/trustee", {"on": False}, ok=(200, 409))
                if status == 409:
                    return "seat locked" if view["code"] == "trustee_locked" else "table lost"
                continue
            if view.get("legal_actions"):
                if phone.post_action(view["legal_actions"][0], view["version"]):
                    return "same table"
            else:
                others_move(clients, phone, rng, None)
                _, log = phone.call("GET", f"games/{phone.game}/events?after={phone.log_after}")
                phone.log_after = log["last_seq"]
            _, view = phone.call("GET", f"games/{phone.game}")
            if view["phase"] in ("over", "void"):
                return "table lost"
        raise RuntimeError("baseline recovery did not end")

    def recover_current(phone: Phone, clients, rng, reinstalled: bool) -> str:
        if reinstalled:
            active = rejoin(phone, reinstalled)
            if active is None:
                return "table lost"
            phone.feed_after = active["feed_last_seq"]
            _, view = phone.call("GET", f"games/{phone.game}")
            if view.get("legal_actions") and phone.post_action(view["legal_actions"][0], view["version"]):
                return "same table"
        for _ in range(200):
            entries = phone.feed()
            trustee = [e for e in entries if e["type"] == "trustee"]
            if trustee and trustee[-1]["on"]:
                if trustee[-1]["locked"]:
                    return "seat locked"
                status, view = phone.call("POST", f"games/{phone.game}/trustee", {"on": False}, ok=(200, 409))
                if status == 409:  # the deal is over (with the seat on 托管: its table went with it)
                    return "table lost"
                if view.get("legal_actions"):
                    if phone.post_action(view["legal_actions"][0], view["version"]):
                        return "same table"
                continue
            if phone.turn is not None:
                turn, phone.turn = phone.turn, None
                if phone.post_action(turn["legal_actions"][0], turn["version"]):
                    return "same table"
                continue
            moved = others_move(clients, phone, rng, None)
            if moved == 0 and game_row(phone.game).status != GameStatus.RUNNING:
                # The feed of this checkout does not tell a deal's end: the table is read once.
                _, active = phone.call("GET", "me/active")
                if not active["tables"] or active["tables"][0]["game"] in (None, phone.game):
                    return "table lost"
        raise RuntimeError("current recovery did not end")

    results: dict = {}
    seeds = random.Random(f"recovery-{stamp}")
    for scenario in SCENARIOS:
        for _ in range(args.deals):
            seed = seeds.randrange(2**62)
            for procedure in PROCEDURES:
                rng = random.Random(seed)
                phone, clients, _ = sit(scenario, seed)
                phone.feed()
                to_the_phones_turn(phone, clients, rng)
                reinstalled = scenario.startswith("reinstall")
                if scenario.startswith("away"):
                    away(phone, clients, rng, float(scenario.split()[1]))
                elif reinstalled:
                    reinstall(phone)
                else:
                    outage(phone, 30.0)
                phone.counting = True
                recover = recover_baseline if procedure == "baseline" else recover_current
                outcome = recover(phone, clients, rng, reinstalled)
                results.setdefault((scenario, procedure), []).append(
                    (phone.requests, phone.bytes, phone.seconds * 1e3, outcome)
                )
                if args.show:
                    print(f"{scenario}, {procedure}: {outcome}: " + "; ".join(phone.made))
    return results


def _print(results: dict, args) -> None:
    print(f"phone recovery, weihai, {args.deals} deal(s) per row, others move every {args.pace:g} s; "
          "median of the deals (requests and bytes up to and including the first accepted move)")  # fmt: skip
    print(f"{'scenario':<28}{'procedure':<10}{'requests':>9}{'bytes':>9}{'own ms':>9}  outcome")
    for scenario in SCENARIOS:
        for procedure in PROCEDURES:
            rows = results[(scenario, procedure)]
            outcomes = sorted({row[3] for row in rows})
            print(
                f"{scenario:<28}{procedure:<10}{statistics.median(r[0] for r in rows):>9g}"
                f"{statistics.median(r[1] for r in rows):>9g}{statistics.median(r[2] for r in rows):>9.1f}"
                f"  {', '.join(outcomes)}"
            )


if __name__ == "__main__":
    main()
