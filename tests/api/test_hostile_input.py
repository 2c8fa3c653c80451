"""Hostile input is a 4xx in the one error shape and changes nothing (issue 26, docs/security.md
"Hostile input"): the probe's cases, each at the HTTP level, on PostgreSQL and on SQLite (scripts/test
runs this file on both). The fuzz over the whole schema is tests/api/test_fuzz.py."""

import base64

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import AuthToken, ModerationAction, Sanction, User
from games.models import Event, Game
from matchmaking.models import Penalty, Report, Seat, Table, Ticket
from tests.moderation.helpers import make_moderator

pytestmark = pytest.mark.django_db

PAST_63_BITS = 2**63  # one past the largest id
PAST_64_BITS = 2**64


def _snapshot() -> dict:
    models = (User, AuthToken, Table, Seat, Game, Event, Report, Sanction, ModerationAction, Ticket, Penalty)
    return {model.__name__: model.objects.count() for model in models}


def _client(token: str) -> APIClient:
    # A 500 is an answer to see here, not an exception to stop at.
    client = APIClient(raise_request_exception=False)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def _assert_refused(response, status: int, code: str) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    body = response.json()
    assert set(body) == {"code", "message", "extra"}, body
    assert body["code"] == code and isinstance(body["message"], str), body
    return body


def _cursor(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


@pytest.fixture
def world(make_table, make_user, make_client):
    setup = make_table()
    moderator, _ = make_moderator(make_user, make_client)
    player_token = setup["tokens"][0]
    _, staff_token = make_user(staff=True)
    from accounts import services

    return {
        **setup,
        "player": _client(player_token),
        "staff": _client(staff_token),
        "moderator": _client(services.token_create(user=moderator)),
    }


BAD = (400, "invalid_request")
MISSING = (404, "not_found")
SANCTION = '"kind": "ban", "reason": "x"'

# (who, method, path, raw JSON body or None, (status, code)); `{game}`, `{table}`, `{user}` are the
# world's. Bodies are raw text: a lone surrogate cannot be sent through a JSON encoder.
CASES = [
    # Lone surrogates and NUL in JSON: the error message echoed the value and could not be rendered.
    ("player", "post", "tables", r'{"preset": "\ud800"}', BAD),
    ("player", "post", "tables", r'{"preset": "weihai", "options": {"\udfff": 1}}', BAD),
    ("player", "post", "tables", r'{"preset": "a\u0000"}', BAD),
    ("player", "post", "matchmaking/tickets", r'{"preset": "\ud800"}', BAD),
    ("player", "post", "games/{game}/actions", r'{"type": "\udc00"}', BAD),
    ("player", "post", "games/{game}/actions", r'{"type": "play", "cards": ["\ud83d"]}', BAD),
    ("player", "post", "reports", r'{"user": {user}, "reason": "other", "text": "x\u0000"}', BAD),
    ("moderator", "post", "moderation/sanctions", r'{"user": 1, "kind": "\ud800", "reason": "x"}', BAD),
    # Numbers no column holds.
    ("moderator", "post", "moderation/sanctions", '{"user": 1' + "0" * 400 + ", " + SANCTION + "}", BAD),
    ("moderator", "post", "moderation/sanctions", f'{{"user": {PAST_63_BITS}, {SANCTION}}}', BAD),
    ("moderator", "post", "moderation/sanctions", f'{{"user": 1, "report": 1e400, {SANCTION}}}', BAD),
    ("player", "post", "tables/{table}/join", f'{{"seat": {PAST_64_BITS}}}', BAD),
    # Forged cursors: `p=abc`, `p=-1` on a list ordered by date, `p=abc` on one ordered by id.
    ("player", "get", "tables?cursor=cD1hYmM=", None, BAD),
    ("player", "get", "tables?cursor=cD0tMQ==", None, BAD),
    ("player", "get", "tables?cursor=" + _cursor("p=2026-01-01 00:00:00"), None, BAD),  # naive
    ("player", "get", "tables?cursor=" + _cursor("p=0001-01-01 00:00:00+01:00"), None, BAD),  # year 0 in UTC
    ("player", "get", "users/{user}/games?cursor=cD1hYmM=", None, BAD),
    ("player", "get", "users/{user}/games?cursor=" + _cursor(f"p={PAST_64_BITS}"), None, BAD),
    # Ids past 64 bits (and 0, and more digits than any id) name nothing.
    ("player", "get", f"games/{PAST_63_BITS}", None, MISSING),
    ("player", "get", f"games/{PAST_63_BITS}/events", None, MISSING),
    ("player", "get", f"games/{PAST_63_BITS}/final", None, MISSING),
    ("player", "post", f"games/{PAST_63_BITS}/actions", '{"type": "pass"}', MISSING),
    ("player", "post", f"games/{PAST_63_BITS}/trustee", '{"on": true}', MISSING),
    ("player", "post", f"tables/{PAST_63_BITS}/leave", None, MISSING),
    ("player", "post", f"tables/{PAST_64_BITS}/join", "{}", MISSING),
    ("player", "get", "games/0", None, MISSING),
    ("player", "get", "games/" + "9" * 5000, None, MISSING),
    ("player", "get", f"users/{PAST_63_BITS}/games", None, MISSING),
    ("player", "get", f"matchmaking/tickets/{PAST_63_BITS}", None, MISSING),
    ("staff", "post", f"tables/{{table}}/seats/{PAST_64_BITS}/remove", None, MISSING),
    (
        "moderator",
        "post",
        f"moderation/tables/{{table}}/seats/{PAST_64_BITS}/foul",
        '{"reason": "x"}',
        MISSING,
    ),
    ("moderator", "post", f"moderation/games/{PAST_63_BITS}/abort", '{"reason": "x"}', MISSING),
]


@pytest.mark.parametrize(
    ("who", "method", "path", "body", "expected"), CASES, ids=[f"{case[1]} {case[2][:60]}" for case in CASES]
)
def test_hostile_api_input_is_a_4xx_and_changes_nothing(world, who, method, path, body, expected):
    url = "/api/v1/" + path.format(game=world["game"], table=world["table"], user=world["users"][0].pk)
    if body is not None:
        body = body.replace("{user}", str(world["users"][1].pk))
    before = _snapshot()
    client = world[who]
    if body is None:
        response = getattr(client, method)(url)
    else:
        response = getattr(client, method)(url, body, content_type="application/json")
    _assert_refused(response, *expected)
    assert _snapshot() == before


def test_a_good_cursor_still_walks_the_lobby(make_user, make_client):
    _, token = make_user()
    client = make_client(token)
    _, staff_token = make_user(staff=True)
    for _ in range(3):
        assert (
            make_client(staff_token).post("/api/v1/tables", {"preset": "weihai"}, format="json").status_code
            == 201
        )
    seen, cursor = [], None
    while True:
        page = client.get("/api/v1/tables", {"page_size": 1, **({"cursor": cursor} if cursor else {})}).json()
        seen += [table["id"] for table in page["results"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) >= 3


def test_astral_characters_in_pairs_are_still_accepted(world):
    # A surrogate *pair* is one character (U+1F600): only a lone half is refused.
    response = world["player"].post(
        "/api/v1/reports",
        rf'{{"user": {world["users"][1].pk}, "reason": "other", "text": "\ud83d\ude00"}}',
        content_type="application/json",
    )
    assert response.status_code == 201, response.content


# --- OAuth (django-oauth-toolkit under /o/) -----------------------------------------------------------


def test_a_nul_client_id_at_the_token_endpoint_is_a_400(make_user):
    before = _snapshot()
    client = Client(raise_request_exception=False)
    for body in (
        "grant_type=authorization_code&code=x&client_id=%00",
        "grant_type=password&client_id=app&username=%00&password=x",
        "grant_type=refresh_token&client_id=app&refresh_token=%00",
    ):
        response = client.post("/o/token/", body, content_type="application/x-www-form-urlencoded")
        assert response.status_code == 400, (body, response.content)
        assert response.json()["error"] == "invalid_request"
    basic = base64.b64encode(b"%00:secret").decode()
    response = client.post(
        "/o/token/",
        "grant_type=client_credentials",
        content_type="application/x-www-form-urlencoded",
        HTTP_AUTHORIZATION=f"Basic {basic}",
    )
    assert response.status_code == 400 and response.json()["error"] == "invalid_request"
    response = client.post("/o/revoke_token/", {"token": "\x00", "client_id": "app"})
    assert response.status_code == 400 and response.json()["error"] == "invalid_request"
    assert _snapshot() == before


def test_the_signed_in_oauth_pages_refuse_nul_and_bad_ids(make_user):
    user, _ = make_user()
    client = Client(raise_request_exception=False)
    assert (
        client.post("/o/login/", {"username": user.username, "password": "correct-horse-9"}).status_code
        == 302
    )
    # The consent page shows the error itself and never redirects to a client it cannot trust.
    for query in ("client_id=%00", "client_id=%00&response_type=code&redirect_uri=http://127.0.0.1/cb"):
        page = client.get(f"/o/authorize/?{query}")
        assert page.status_code == 400, (query, page.content[:300])
        assert "invalid_request" in page.content.decode()
    for path in (
        "applications/abc/",
        "applications/abc/update/",
        "applications/abc/delete/",
        "authorized_tokens/abc/delete/",
        f"applications/{PAST_63_BITS}/",
        f"authorized_tokens/{PAST_64_BITS}/delete/",
    ):
        for method in ("get", "post"):
            _assert_refused(getattr(client, method)(f"/o/{path}"), 404, "not_found")


def test_the_management_pages_still_open_an_application(make_user):
    from oauth2_provider.models import get_application_model

    user, _ = make_user()
    client = Client()
    client.force_login(user)
    app = get_application_model().objects.create(
        name="mine",
        user=user,
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:8765/cb",
    )
    listing = client.get("/o/applications/")
    assert listing.status_code == 200 and f"/o/applications/{app.pk}/" in listing.content.decode()
    assert client.get(f"/o/applications/{app.pk}/").status_code == 200
    assert client.get(f"/o/applications/{app.pk}/update/").status_code == 200
    assert client.post(f"/o/applications/{app.pk}/delete/").status_code == 302
    assert not get_application_model().objects.filter(pk=app.pk).exists()
