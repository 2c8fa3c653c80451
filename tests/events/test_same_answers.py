"""The event server and the web role answer the same request the same way: status, body and the
headers a client reads (docs/architecture.md "Processes": the reverse proxy routes these URLs to the
event server; the web role's DRF views answer them too, at once).

Each question goes to both: the web role through Django's test client, the event server through its
ASGI application. Only the waiting (and the stream) is the event server's own.
"""

import random

import pytest

from accounts import services as account_services
from accounts.models import Sanction, SanctionKind
from accounts.scopes import Scope
from games.models import Game
from tests.api.playing import step
from tests.events import client as events

pytestmark = pytest.mark.django_db(transaction=True)

# Headers a client reads; Date, Server, Content-Length and the request id differ or are transport's.
COMPARED = (
    "content-type",
    "vary",
    "www-authenticate",
    "retry-after",
    "x-content-type-options",
    "referrer-policy",
    "cross-origin-opener-policy",
    "x-frame-options",
    "api-version",
)


def _web(make_client, token, path, query):
    response = make_client(token).get(path, query)
    headers = {name.lower(): value for name, value in response.items()}
    return response.status_code, response.content, headers


def _compare(make_client, path, *, token=None, query=None):
    status, body, headers = _web(make_client, token, path, query or {})
    answer = events.get(path, query=query, token=token)
    assert (answer.status, answer.body) == (status, body), (path, query, answer.status, answer.body[:300])
    for name in COMPARED:
        assert answer.headers.get(name) == headers.get(name), (name, path, query)
    assert answer.headers["x-request-id"] and headers["x-request-id"]
    return answer


def _played(setup, moves: int = 6):
    rng = random.Random(3)
    for _ in range(moves):
        step(setup["clients"], setup["game"], rng)


def test_a_deals_log_reads_the_same_for_every_seat_a_spectator_and_every_after(
    make_table, make_user, make_client
):
    setup = make_table()
    _played(setup)
    path = f"/api/v1/games/{setup['game']}/events"
    _, outsider = make_user()
    for token in [*setup["tokens"], outsider]:
        for after in (0, 3, 10_000):
            _compare(make_client, path, token=token, query={"after": after})


def test_refusals_read_the_same(make_table, make_user, make_client):
    setup = make_table(private=True)
    game, table = setup["game"], setup["table"]
    _, outsider = make_user()
    banned_user, banned = make_user()
    Sanction.objects.create(user=banned_user, kind=SanctionKind.BAN, reason="test")
    _, narrow = account_services.personal_token_create(
        user=setup["users"][0],
        name="n",
        scopes=[Scope.PLAY],
        expires_in_days=1,
        granted=frozenset(Scope.values),
    )
    missing = Game.objects.order_by("-pk").first().pk + 1000
    cases = [
        (f"/api/v1/games/{game}/events", None, None),
        (f"/api/v1/games/{game}/events", "not-a-token", None),
        (f"/api/v1/games/{game}/events", outsider, None),  # a private table
        (f"/api/v1/games/{game}/events", banned, None),
        (f"/api/v1/games/{game}/events", narrow, None),  # no `read` scope
        (f"/api/v1/games/{missing}/events", setup["tokens"][0], None),
        (f"/api/v1/games/{game}/events", setup["tokens"][0], {"after": "-1"}),
        (f"/api/v1/games/{game}/events", setup["tokens"][0], {"after": "x", "wait": "y"}),
        (f"/api/v1/tables/{table}/events", outsider, None),
        (f"/api/v1/tables/{table}/events", setup["tokens"][1], {"after": "0", "extra": "1"}),
        ("/api/v1/me/events", None, None),
        ("/api/v1/me/events", banned, None),
        ("/api/v1/me/events", setup["tokens"][2], {"wait": "-1"}),
        ("/api/v1/matchmaking/tickets/999999", setup["tokens"][0], None),
    ]
    for path, token, query in cases:
        answer = _compare(make_client, path, token=token, query=query)
        assert answer.status >= 400, (path, token, query)


def test_the_feed_a_tables_log_and_a_ticket_read_the_same(make_table, make_client):
    setup = make_table()
    _played(setup, moves=3)
    for seat, token in enumerate(setup["tokens"]):
        _compare(make_client, "/api/v1/me/events", token=token, query={"after": seat})
    _compare(make_client, f"/api/v1/tables/{setup['table']}/events", token=setup["tokens"][0])
    guest = make_client().post("/api/v1/auth/guest").json()["token"]
    ticket = make_client(guest).post("/api/v1/matchmaking/tickets", {"preset": "pagat"}, format="json").json()
    answer = _compare(make_client, f"/api/v1/matchmaking/tickets/{ticket['id']}", token=guest)
    assert answer.json()["status"] == "waiting"


def test_ids_no_row_can_have_read_the_same_on_both(make_user, make_client):
    # Past 64 bits, 0, and more digits than any id: no URL on either role (infra/api/converters.py).
    _, token = make_user()
    for bad in (2**63, 2**64, 0, "9" * 5000):
        for path in (
            f"/api/v1/games/{bad}/events",
            f"/api/v1/tables/{bad}/events",
            f"/api/v1/matchmaking/tickets/{bad}",
        ):
            answer = _compare(make_client, path, token=token)
            assert answer.status == 404 and answer.json()["code"] == "not_found", (path, answer.body[:200])


def test_bad_after_values_read_the_same_on_both(make_table, make_client):
    setup = make_table()
    token = setup["tokens"][0]
    for path in (
        f"/api/v1/games/{setup['game']}/events",
        f"/api/v1/tables/{setup['table']}/events",
        "/api/v1/me/events",
    ):
        for query in ({"after": str(2**63)}, {"after": "9" * 5000}, {"after": "\x00"}, {"wait": "1e400"}):
            answer = _compare(make_client, path, token=token, query=query)
            assert answer.status == 400 and answer.json()["code"] == "invalid_request", (path, query)


def test_a_feed_cursor_past_its_end_reads_the_same_on_both_and_as_a_stream(make_table, make_client):
    setup = make_table()
    token = setup["tokens"][0]
    newest = make_client(token).get("/api/v1/me/events").json()["last_seq"]
    answer = _compare(make_client, "/api/v1/me/events", token=token, query={"after": newest + 5})
    assert answer.status == 409 and answer.json()["extra"] == {"last_seq": newest}
    # A stream that reconnects with a Last-Event-ID the feed never reached is told so, not left waiting.
    stream = events.get(
        "/api/v1/me/events",
        token=token,
        headers={"accept": "text/event-stream", "last-event-id": str(newest + 5)},
    )
    assert stream.status == 409 and stream.json()["code"] == "feed_cursor_ahead"
