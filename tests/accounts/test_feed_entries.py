"""The feed tells a player everything about his own seat that he must react to (docs/client-guide.md
§4, issue 38 item 2): `trustee`, `timeout`, `prompt_closed`, `your_turn` naming its table and seat,
`ticket_expired` and `ticket_cancelled`; each to its own user only, and nothing hidden in any of them.
The timer and the matcher are called as their tasks call them (no worker here)."""

import random
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts import feed
from accounts.feed_apis import FEED_EVENTS
from games import engine, selectors, services
from games.models import Game
from matchmaking import matching
from matchmaking.models import Ticket
from tests.api.playing import get_view, play_deal, post_action
from tests.api.test_no_leaks import LeakScanner
from tests.games.test_timers import _to_prompt_with_one_answer
from tests.games.trustees import set_trustee

pytestmark = pytest.mark.django_db

SEAT_ENTRIES = {"your_turn", "prompt_closed", "timeout", "trustee"}


def _new(client, after: int) -> list[dict]:
    response = client.get("/api/v1/me/events", {"after": after})
    assert response.status_code == 200, response.content
    return response.json()["events"]


def _last(client) -> int:
    return client.get("/api/v1/me/events").json()["last_seq"]


def _overdue(game_id: int) -> Game:
    Game.objects.filter(pk=game_id).update(deadline=timezone.now() - timedelta(seconds=5))
    return Game.objects.select_related("table").get(pk=game_id)


def _prompted(game_id: int) -> tuple[int, ...]:
    return engine.to_act(selectors.game_state(game=Game.objects.get(pk=game_id)))


def _without_seq(entries: list[dict], *types: str) -> list[dict]:
    return [{k: v for k, v in e.items() if k != "seq"} for e in entries if e["type"] in types]


def test_a_mover_is_told_his_prompt_closed_by_him_and_the_next_seat_its_table_and_seat(make_table):
    setup = make_table()
    game_id = setup["game"]
    (seat,) = _prompted(game_id)
    starts = [_last(client) for client in setup["clients"]]
    view = get_view(setup["clients"][seat], game_id)
    response = post_action(setup["clients"][seat], game_id, view["legal_actions"][0], version=view["version"])
    assert response.status_code == 200
    version = response.json()["version"]

    assert _without_seq(_new(setup["clients"][seat], starts[seat]), *SEAT_ENTRIES) == [
        {"type": "prompt_closed", "game": game_id, "table": setup["table"], "seat": seat,
         "version": version, "by": "you"}
    ]
    for other in _prompted(game_id):
        (turn,) = _new(setup["clients"][other], starts[other])
        assert (turn["type"], turn["table"], turn["seat"], turn["version"]) == (
            "your_turn", setup["table"], other, version
        )


def test_a_timeout_tells_its_seat_what_the_timer_did_in_order_and_nobody_else(make_table):
    setup = make_table()
    game = _overdue(setup["game"])
    (seat,) = _prompted(game.pk)
    starts = [_last(client) for client in setup["clients"]]
    where = {"game": game.pk, "table": setup["table"], "seat": seat}

    with CaptureQueriesContext(connection) as queries:
        assert services.game_deadline_expire(game_id=game.pk, version=game.version) is True

    # One statement appends every feed entry of the timeout (the seat's three, the next prompt's).
    feed_writes = [q["sql"] for q in queries if "feed_numbered" in q["sql"]]
    assert len(feed_writes) == 1, feed_writes
    after = Game.objects.get(pk=game.pk)
    assert _without_seq(_new(setup["clients"][seat], starts[seat]), *SEAT_ENTRIES) == [
        {"type": "timeout", **where, "version": game.version, "outcome": "trustee"},
        {"type": "trustee", **where, "on": True, "locked": False, "by": "timeout"},
        {"type": "prompt_closed", **where, "version": game.version + 1, "by": "timer"},
    ]
    assert after.trustee[seat]
    for other, client in enumerate(setup["clients"]):
        if other != seat:
            assert {e["type"] for e in _new(client, starts[other])} <= {"your_turn"}


@pytest.mark.parametrize(("preset", "seed"), [("campus", 1)])
def test_a_timeout_that_gives_the_one_legal_answer_says_so_and_leaves_the_seat_off_trustee(
    make_table, preset, seed
):
    setup = make_table(preset=preset, setups=[{"seed": seed}])
    game, seat = _to_prompt_with_one_answer(setup)
    start = _last(setup["clients"][seat])
    game = _overdue(game.pk)

    assert services.game_deadline_expire(game_id=game.pk, version=game.version) is True

    entries = _without_seq(_new(setup["clients"][seat], start), "timeout", "trustee", "prompt_closed")
    assert [(e["type"], e.get("outcome") or e.get("by")) for e in entries] == [
        ("timeout", "answered"), ("prompt_closed", "timer")
    ]


def test_trustee_by_request_closes_the_prompt_by_trustee_and_coming_back_is_told_too(make_table):
    setup = make_table()
    game_id = setup["game"]
    (seat,) = _prompted(game_id)
    client = setup["clients"][seat]
    start = _last(client)

    assert set_trustee(setup, seat, True).status_code == 200
    assert set_trustee(setup, seat, False).status_code == 200

    entries = _without_seq(_new(client, start), *SEAT_ENTRIES)
    assert [(e["type"], e.get("on"), e["by"]) for e in entries] == [
        ("trustee", True, "request"), ("prompt_closed", None, "trustee"), ("trustee", False, "request")
    ]
    assert all(e["seat"] == seat and e["game"] == game_id for e in entries)


def test_leaving_a_running_deal_tells_the_seat_it_is_on_locked_trustee(make_table):
    setup = make_table()
    client = setup["clients"][2]
    start = _last(client)
    assert client.post(f"/api/v1/tables/{setup['table']}/leave").status_code == 200

    (entry,) = _without_seq(_new(client, start), "trustee")
    assert entry == {"type": "trustee", "game": setup["game"], "table": setup["table"], "seat": 2,
                     "on": True, "locked": True, "by": "left"}


def test_an_aborted_deal_closes_the_open_prompt(make_table):
    setup = make_table()
    (seat,) = _prompted(setup["game"])
    start = _last(setup["clients"][seat])
    assert services.game_abort(game_id=setup["game"], reason="test") is True
    (entry,) = _without_seq(_new(setup["clients"][seat], start), "prompt_closed")
    assert entry["by"] == "aborted"


def _ticket(client) -> int:
    response = client.post("/api/v1/matchmaking/tickets", {"preset": "weihai"}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def test_a_ticket_that_leaves_the_queue_unseated_tells_its_owner_why(make_user, make_client):
    from matchmaking import tickets

    clients = [make_client(make_user()[1]) for _ in range(4)]
    staff = make_client(make_user(staff=True)[1])
    mine, staffs, stale, banned = [_ticket(client) for client in clients]
    assert clients[0].delete(f"/api/v1/matchmaking/tickets/{mine}").status_code == 200
    assert staff.delete(f"/api/v1/matchmaking/tickets/{staffs}").status_code == 200
    old = timezone.now() - timedelta(seconds=settings.MATCHMAKING_TICKET_TTL + 1)
    Ticket.objects.filter(pk=stale).update(last_polled_at=old)
    matching.tickets_match()
    tickets.tickets_cancel_of_user(user_id=Ticket.objects.get(pk=banned).user_id)

    told = [_without_seq(_new(client, 0), "ticket_expired", "ticket_cancelled") for client in clients]
    assert told == [
        [{"type": "ticket_cancelled", "ticket": mine, "reason": "you"}],
        [{"type": "ticket_cancelled", "ticket": staffs, "reason": "staff"}],
        [{"type": "ticket_expired", "ticket": stale, "reason": "not_polled"}],
        [{"type": "ticket_cancelled", "ticket": banned, "reason": "banned"}],
    ]
    assert _new(staff, 0) == []


def test_one_append_numbers_several_entries_of_one_user_in_order(make_user):
    users = [make_user()[0] for _ in range(2)]
    feed.feed_append(user_id=users[0].pk, type="sanction", data={"n": 0})
    seqs = feed.feed_append_many(
        [(users[0].pk, "sanction", {"n": 1}), (users[1].pk, "sanction", {"n": 2}),
         (users[0].pk, "sanction", {"n": 3})]
    )
    assert seqs == [2, 1, 3]
    assert [(e["seq"], e["n"]) for e in feed.feed_read(user_id=users[0].pk, after=0)["events"]] == [
        (1, 0), (2, 1), (3, 3)
    ]


def test_no_feed_entry_of_a_deal_reaches_another_seat_or_carries_hidden_information(
    make_table, make_client, make_user
):
    """A whole deal with every kind of seat entry (moves, a timeout, 托管 on and off by request, a
    seat that leaves): each user's feed, scanned as the deal's views are (another seat's cards, the
    seed), speaks only of his own seat, with the fields the schema declares and nothing else."""
    # One deal: the next deal's entries (its own game) are not this scan's.
    setup = make_table(setups=[{"seed": 7314159265}], deals=1)  # long seed: never part of a timestamp
    game_id = setup["game"]
    _, spectator_token = make_user()
    tokens = {**dict(enumerate(setup["tokens"])), None: spectator_token}
    scanner = LeakScanner(game_id, setup["clients"], make_client(spectator_token), tokens)
    cursors = [0] * 5
    seen: dict[int, list[dict]] = {seat: [] for seat in range(5)}

    def scan(*_):
        for seat, client in enumerate(setup["clients"]):
            body = client.get("/api/v1/me/events", {"after": cursors[seat]}).json()
            scanner.check(seat, body)
            seen[seat] += body["events"]
            cursors[seat] = body["last_seq"]

    rng = random.Random(38)
    steps = 0

    def observe(seat, kind, body):
        nonlocal steps
        if kind != "action":
            return
        steps += 1
        scan()
        if steps == 3:  # a timeout
            game = _overdue(game_id)
            services.game_deadline_expire(game_id=game_id, version=game.version)
        if steps == 5:
            set_trustee(setup, 1, True)
            set_trustee(setup, 1, False)
        scan()

    play_deal(setup["clients"], game_id, rng, observe=observe)
    scan()
    kinds = {entry["type"] for entries in seen.values() for entry in entries}
    assert SEAT_ENTRIES | {"deal_started"} <= kinds, kinds
    for seat, entries in seen.items():
        for entry in entries:
            assert set(entry) <= set(FEED_EVENTS[entry["type"]]().fields), entry
            if entry["type"] in SEAT_ENTRIES | {"deal_started"}:
                assert (entry["game"], entry["table"], entry["seat"]) == (game_id, setup["table"], seat)
