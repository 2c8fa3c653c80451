#!/usr/bin/env python3
"""A quick tour of the API: five guests play one whole deal over HTTP, standard library only.

    python3 scripts/quick_tour.py http://127.0.0.1:8000

Every move is one of the mover's own `legal_actions` (so only cards it holds), sent with
`expected_version` and an `Idempotency-Key`; the tour then reads the events and the final view.
docs/client-guide.md explains each step.
"""

import json
import random
import sys
import urllib.error
import urllib.request
import uuid


class Api:
    def __init__(self, base: str, token: str | None = None):
        self.base = base.rstrip("/") + "/api/v1"
        self.token = token

    def call(self, method: str, path: str, body: dict | None = None, headers: dict | None = None) -> dict:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.load(response)
        except urllib.error.HTTPError as error:
            # Every error has the body {"code", "message", "extra"}.
            raise SystemExit(f"{method} {path} -> {error.code} {error.read().decode()}") from None


def events(api: Api, path: str) -> list[dict]:
    """A whole log, following `last_seq` (a client long-polls with `wait` instead)."""
    found, after = [], 0
    while True:
        page = api.call("GET", f"{path}?after={after}")
        found += page["events"]
        if page["last_seq"] == after:
            return found
        after = page["last_seq"]


def prompted(view: dict) -> list[int]:
    # `to_act` is null while a declaration window is open: then the window says who is asked.
    return view["to_act"] if view["to_act"] is not None else view["window"]["asked"]


def play_deal(players: list[Api], game: int, rng: random.Random) -> dict:
    while True:
        public = players[0].call("GET", f"/games/{game}")
        if public["phase"] in ("over", "void"):
            return players[0].call("GET", f"/games/{game}/final")
        for seat in prompted(public):
            view = players[seat].call("GET", f"/games/{game}")
            if view.get("legal_actions"):
                break
        else:
            raise SystemExit("nobody prompted has a legal action")
        plays = [a for a in view["legal_actions"] if a["type"] == "play"]
        action = rng.choice(plays) if plays and rng.random() < 0.8 else rng.choice(view["legal_actions"])
        players[seat].call(
            "POST",
            f"/games/{game}/actions",
            {**action, "expected_version": view["version"]},
            headers={"Idempotency-Key": uuid.uuid4().hex},
        )
        if action["type"] == "play":
            print(f"  seat {seat} plays {' '.join(action['cards'])}")


def main(base: str) -> None:
    rng = random.Random()
    guests = [Api(base).call("POST", "/auth/guest") for _ in range(5)]
    players = [Api(base, guest["token"]) for guest in guests]
    print("five guests:", ", ".join(guest["user"]["username"] for guest in guests))
    table = players[0].call("POST", "/tables", {"preset": "weihai", "deals": 1})
    for seat, player in enumerate(players):
        player.call("POST", f"/tables/{table['id']}/join", {"seat": seat})
    print(f"table {table['id']} is full: the fifth join dealt the first deal")
    for _ in range(4):  # a void deal (nobody became emperor) is dealt again
        started = [
            e for e in events(players[0], f"/tables/{table['id']}/events") if e["type"] == "deal_started"
        ]
        game = started[-1]["game"]
        print(f"deal {started[-1]['number']}: game {game}")
        final = play_deal(players, game, rng)
        log = events(players[0], f"/games/{game}/events")
        print(f"  {len(log)} events seen by seat 0; phase {final['phase']}")
        if not final["void"]:
            print("final scores:", final["scores"], "roles:", final["roles"])
            return
    raise SystemExit("four void deals in a row")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000")
