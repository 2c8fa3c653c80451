"""A client that follows only its feed (`GET me/events`, docs/client-guide.md §4) plays through the
production roles behind the shipped proxy (the `deployment` of tests/ops/test_deployment.py: web,
events, a Celery worker and beat, nginx): a quick match with bots, a whole deal, the next deal, a
timeout, a ticket that expires and a closed table. It reacts to feed entries alone; the only other
reads it makes are the views a `deal_started` names (its hand) — never a poll of a ticket, a table or
a deal's log (issue 38 item 2).

Time is simulated as the timer tests do: a deadline or a ticket's last poll is moved into the past
in the database, and the beat's sweep and matcher act on it within seconds.
"""

import json
import random
import re
import time
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game
from matchmaking.models import Ticket
from tests.ops.test_deployment import _call, deployment  # noqa: F401 - the fixture, used by name

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.celery_worker]
# A move's refusals that mean only "too late" (docs/client-guide.md §3): the deal moved on, or ended
# (a moderator's abort), after the `your_turn` that asked for it.
OVERTAKEN = {"stale_version", "game_over", "not_your_turn"}


@dataclass
class FeedClient:
    """Knows only what its feed told it: its table, its seat, its deal, its open prompt."""

    port: int
    token: str
    after: int = 0
    seen: list[dict] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    unread: list[dict] = field(default_factory=list)

    def call(self, method: str, path: str, body=None, *, overtaken: bool = False) -> dict | None:
        """`overtaken`: a move answered `409` because the deal moved on or ended before it arrived (a
        later entry says what happened) is None, as a client that reads on treats it."""
        self.requests.append(f"{method} {path.split('?')[0]}")
        status, _, answer = _call(self.port, method, f"/api/v1/{path}", token=self.token, body=body)
        if overtaken and status == 409 and json.loads(answer)["code"] in OVERTAKEN:
            return None
        assert status in (200, 201), (method, path, status, answer[:300])
        return json.loads(answer)

    def entries(self, wait: int = 10) -> list[dict]:
        """The feed's next entries (a long-poll)."""
        page = self.call("GET", f"me/events?after={self.after}&wait={wait}")
        self.after = page["last_seq"]
        self.seen += page["events"]
        return page["events"]

    def until(self, type: str, timeout: float = 60, react=None) -> dict:
        """Read the feed until an entry of `type` comes, handing every entry before it to `react`;
        the entries read after it wait for the next call."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if not self.unread:
                self.unread += self.entries()
            while self.unread:
                entry = self.unread.pop(0)
                if entry["type"] == type:
                    return entry
                if react is not None:
                    react(entry)
        raise AssertionError(f"no {type} in the feed: {[e['type'] for e in self.seen[-20:]]}")


def _guest(port: int) -> str:
    status, _, body = _call(port, "POST", "/api/v1/auth/guest", body={})
    assert status == 201, body
    return json.loads(body)["token"]


@dataclass
class Player:
    """Answers every `your_turn` from its own `legal_actions`; once, lets one prompt time out
    instead, and takes its seat back from 托管 when the feed says the timer put it there."""

    client: FeedClient
    rng: random.Random
    game: int = 0
    answered: int = 0
    timed_out: list[dict] = field(default_factory=list)  # the timeout's entries, in order
    time_out_at: int | None = None  # let this many-th answer time out

    def react(self, entry: dict) -> None:
        kind = entry["type"]
        if kind == "deal_started":
            self.game = entry["game"]
            view = self.client.call("GET", f"games/{self.game}")  # the new hand
            assert view["seat"] == entry["seat"]
        elif kind == "your_turn":
            assert (entry["game"], entry["seat"]) == (self.game, self.seat)
            if self.time_out_at is not None and self.answered == self.time_out_at:
                self.time_out_at = None
                # The player looks away: his deadline passes (moved into the past, as in the timer tests).
                Game.objects.filter(pk=self.game).update(deadline=timezone.now() - timedelta(seconds=5))
                self.timed_out.append(entry)
                return
            action = self.rng.choice(entry["legal_actions"])
            answer = {k: v for k, v in action.items() if v not in (None, [])}
            moved = self.client.call(
                "POST",
                f"games/{self.game}/actions",
                {**answer, "expected_version": entry["version"]},
                overtaken=True,
            )
            self.answered += moved is not None
        elif kind in ("timeout", "trustee", "prompt_closed") and entry.get("by") != "you":
            self.timed_out.append(entry)
            if kind == "trustee" and entry["on"] and not entry["locked"]:
                self.client.call("POST", f"games/{self.game}/trustee", {"on": False}, overtaken=True)

    seat: int = -1


def _play_two_deals(port: int, *, phone_entries: bool) -> None:
    client = FeedClient(port, _guest(port))
    # A quick match with bots: the ticket is never polled; the feed says where to sit.
    ticket = client.call("POST", "matchmaking/tickets", {"preset": "weihai", "bots": True})
    matched = client.until("ticket_matched")
    assert matched["ticket"] == ticket["id"]
    player = Player(client, random.Random(38), seat=matched["seat"], time_out_at=1)

    # A whole deal, with one timeout in it; the next deal's `deal_started` ends it.
    started = client.until("deal_started")
    assert started["game"] == matched["game"] and started["table"] == matched["table"]
    player.react(started)
    first = player.game
    if phone_entries:

        def before_the_end(entry: dict) -> None:
            assert entry["type"] != "deal_started", "the next deal started before any deal_over"
            player.react(entry)

        over = client.until("deal_over", timeout=240, react=before_the_end)
        assert over["game"] == first and over["table"] == matched["table"] and len(over["scores"]) == 5
    second = client.until("deal_started", timeout=240, react=player.react)
    assert second["game"] != first and second["table"] == matched["table"]
    player.react(second)
    assert player.answered > 5
    where = {"game": first, "table": matched["table"], "seat": matched["seat"]}
    kinds = [(e["type"], e.get("outcome") or e.get("by")) for e in player.timed_out[1:]]
    timeout = player.timed_out[1]
    assert {k: timeout[k] for k in where} == where and timeout["version"] >= player.timed_out[0]["version"]
    if kinds[0] == ("timeout", "trustee"):
        assert kinds == [("timeout", "trustee"), ("trustee", "timeout"), ("prompt_closed", "timer"),
                         ("trustee", "request")]
    else:  # the prompt had one legal answer: given for the seat, which stays off 托管
        assert kinds == [("timeout", "answered"), ("prompt_closed", "timer")]

    # A ticket nobody polls expires: another guest learns it from his feed alone.
    other = FeedClient(port, _guest(port))
    waiting = other.call("POST", "matchmaking/tickets", {"preset": "lianzhong_classic", "bots": False})
    Ticket.objects.filter(pk=waiting["id"]).update(last_polled_at=timezone.now() - timedelta(hours=1))
    expired = other.until("ticket_expired", timeout=30)
    assert (expired["ticket"], expired["reason"]) == (waiting["id"], "not_polled")

    if phone_entries:
        # A moderator aborts the running deal: the table closes, and the feed says so.
        from accounts.models import User
        from matchmaking.moderation.services import game_abort

        moderator = User.objects.create_user(username="feed-moderator", password="x-9-long", is_staff=True)
        game_abort(game_id=player.game, reason="feed client test", moderator=moderator, source="test")
        closed = client.until("table_closed", timeout=30, react=player.react)
        assert closed["table"] == matched["table"] and closed["reason"] == "aborted"

    # Everything was learned from the feed: no ticket, table or deal's log was ever polled.
    polled = [r for r in client.requests if re.match(r"GET (matchmaking|tables|games/\d+/events)", r)]
    assert polled == [], polled


def test_a_client_that_follows_only_its_feed_plays_a_match_a_timeout_and_an_expired_ticket(deployment):  # noqa: F811
    _play_two_deals(deployment["port"], phone_entries=False)


def test_the_feed_tells_a_deals_end_and_a_closed_table(deployment):  # noqa: F811
    _play_two_deals(deployment["port"], phone_entries=True)
