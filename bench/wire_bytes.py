#!/usr/bin/env python
"""Bytes on the wire per move and per reconnect, with and without compression and conditional GETs.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bh_capacity .venv/bin/python bench/wire_bytes.py

In one process (Django's test client through the whole middleware and DRF stack, no HTTP server), two
tables are dealt the same seeds and played with the same actions: one by clients as before
(the middleware without infra/api/compression.py, ConditionalGetMiddleware and
infra/api/edge_headers.py — the baseline, measured in the same run), one by clients that send
`Accept-Encoding: gzip, br` and `If-None-Match` as a mobile client would, through today's
middleware. Counted per answer: the status line, the headers the application writes and the body
(the proxy's own Date/Server/Connection headers are the same for both and left out). Per move: the
mover's answer to `POST games/{id}/actions` and a follower's read of the new events. Per reconnect:
`GET games/{id}` and the events of the last five moves; an unchanged view read again (the client
sends the ETag it has). Once per deal: `GET games/{id}/final` and `GET games/{id}/replay`.
Loopback only; bounded by --deals.
"""

import argparse
import gzip
import json
import random
import statistics
import sys
import uuid
from collections import defaultdict
from pathlib import Path

# bench/support.py (found beside this script)
from support import django_in_process, in_process_urls, random_move

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# What today's stack adds to the baseline's (config/settings/base.py MIDDLEWARE).
ADDED_MIDDLEWARE = (
    "infra.api.compression.ApiGZipMiddleware",
    "django.middleware.http.ConditionalGetMiddleware",
    "infra.api.edge_headers.api_headers_middleware",
)


def wire_bytes(response) -> int:
    head = len(f"HTTP/1.1 {response.status_code} {response.reason_phrase}\r\n")
    head += sum(len(f"{name}: {value}\r\n") for name, value in response.items()) + 2
    return head + len(response.content)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--preset", default="weihai")
    parser.add_argument("--max-moves", type=int, default=None, help="stop a deal after this many moves")
    parser.add_argument("--redis-db", type=int, default=12)
    args = parser.parse_args()
    database_url, redis_url = in_process_urls(script="wire_bytes.py", redis_db=args.redis_db)
    django_in_process(database_url=database_url, redis_url=redis_url)
    import redis
    from django.conf import settings
    from django.test import Client, override_settings

    from accounts.models import User
    from accounts.services import token_create
    from games import engine

    baseline_middleware = [name for name in settings.MIDDLEWARE if name not in ADDED_MIDDLEWARE]
    stamp = f"{random.randrange(10**9)}"
    samples: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))

    class Side:
        """One table's players: the baseline's clients or today's."""

        def __init__(self, name: str, *, today: bool) -> None:
            self.name, self.today = name, today
            self.middleware = settings.MIDDLEWARE if today else baseline_middleware
            self.etags: dict[str, str] = {}
            self.staff = self.client(
                User.objects.create_user(
                    username=f"wire-{name}-staff-{stamp}", password="x" * 12, is_staff=True
                )
            )
            self.players = [
                self.client(User.objects.create_user(username=f"wire-{name}-{stamp}-{s}")) for s in range(5)
            ]

        def client(self, user) -> Client:
            headers = {"authorization": f"Bearer {token_create(user=user)}"}
            if self.today:
                headers["accept-encoding"] = "gzip, br"
            return Client(headers=headers)

        def request(self, client: Client, method: str, path: str, **kwargs):
            with override_settings(MIDDLEWARE=self.middleware):
                return getattr(client, method)(path, **kwargs)

        def measure(self, figure: str, client: Client, path: str, *, conditional: bool = False, **query):
            headers = {}
            if conditional and self.today and path in self.etags:
                headers["if-none-match"] = self.etags[path]
            response = self.request(client, "get", path, data=query, headers=headers)
            assert response.status_code in (200, 304), (path, response.status_code, response.content[:200])
            if "ETag" in response:
                self.etags[path] = response["ETag"]
            samples[figure][self.name].append(wire_bytes(response))
            return response

        def body(self, response) -> dict:
            if response.get("Content-Encoding") == "gzip":
                return json.loads(gzip.decompress(response.content))
            return response.json()

        def new_table(self, seed: int) -> int:
            table = self.body(
                self.request(
                    self.staff,
                    "post",
                    "/api/v1/tables",
                    data={"preset": args.preset, "deals": 1, "setups": [{"seed": seed}]},
                    content_type="application/json",
                )
            )
            for seat, player in enumerate(self.players):
                self.request(
                    player,
                    "post",
                    f"/api/v1/tables/{table['id']}/join",
                    data={"code": table["code"], "seat": seat},
                    content_type="application/json",
                )
            return self.body(self.request(self.staff, "get", f"/api/v1/tables/{table['id']}"))["current_game"]

    sides = [Side("before", today=False), Side("after", today=True)]
    rng = random.Random(stamp)
    rules = engine.preset(args.preset)
    moves = 0
    for _ in range(args.deals):
        seed = rng.randrange(2**62)
        games = [side.new_table(seed) for side in sides]
        state = engine.new_deal(rules, seed=seed, start_seat=0, context=None)
        seqs: list[int] = []
        while state.phase not in ("over", "void") and len(seqs) != args.max_moves:
            seat, action, payload = random_move(state, rng)
            follower = (seat + 1) % 5
            for side, game in zip(sides, games, strict=True):
                path = f"/api/v1/games/{game}"
                view = side.body(side.request(side.players[seat], "get", path))
                response = side.request(
                    side.players[seat],
                    "post",
                    f"{path}/actions",
                    data={**payload, "expected_version": view["version"]},
                    content_type="application/json",
                    headers={"idempotency-key": uuid.uuid4().hex},
                )
                assert response.status_code == 200, response.content[:300]
                samples["move: the mover's answer"][side.name].append(wire_bytes(response))
                after = seqs[-1] if seqs else 0
                side.measure(
                    "move: a follower's new events", side.players[follower], f"{path}/events", after=after
                )
            state, _ = engine.apply_action(state, seat, action)
            moves += 1
            for side, game in zip(sides, games, strict=True):
                path = f"/api/v1/games/{game}"
                last = side.body(side.request(side.players[0], "get", f"{path}/events"))["last_seq"]
                if side is sides[0]:
                    seqs.append(last)
                if len(seqs) % 10 == 0:
                    # A reconnect: the view, and the events of the last five moves.
                    side.measure("reconnect: view", side.players[follower], path, conditional=True)
                    side.measure(
                        "reconnect: events of 5 moves",
                        side.players[follower],
                        f"{path}/events",
                        after=seqs[max(0, len(seqs) - 6)],
                    )
                    # Nothing changed since: the same view asked again with the client's ETag.
                    side.measure("reconnect: unchanged view", side.players[follower], path, conditional=True)
        for side, game in zip(sides, games, strict=True):
            if state.phase not in ("over", "void"):
                break
            for _ in range(2):  # the second read carries the ETag of the first
                side.measure("deal: final", side.players[0], f"/api/v1/games/{game}/final", conditional=True)
                side.measure(
                    "deal: replay", side.players[0], f"/api/v1/games/{game}/replay", conditional=True
                )

    redis.Redis.from_url(redis_url).flushdb()
    print(
        f"preset {args.preset}, {args.deals} deals, {moves} moves; "
        "bytes per answer (status line, headers, body)"
    )
    print(
        f"{'answer':>32}  {'before p50':>10}  {'after p50':>9}  {'before mean':>11}  {'after mean':>10}"
        f"  {'after/before':>12}"
    )
    for figure, by_side in samples.items():
        before, after = by_side["before"], by_side["after"]
        ratio = statistics.mean(after) / statistics.mean(before)
        print(
            f"{figure:>32}  {statistics.median(before):10.0f}  {statistics.median(after):9.0f}  "
            f"{statistics.mean(before):11.0f}  {statistics.mean(after):10.0f}  {ratio:12.2f}"
        )
    per_move = {
        name: sum(statistics.mean(samples[f][name]) for f in samples if f.startswith("move:"))
        for name in ("before", "after")
    }
    print(
        f"{'per move (answer + events)':>32}  before {per_move['before']:.0f} B, "
        f"after {per_move['after']:.0f} B"
    )


if __name__ == "__main__":
    main()
