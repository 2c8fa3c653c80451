"""A JSON body carries the types the schema declares: another type is a 400, never a coerced value
(infra/api/serializers.py StrictInputSerializer)."""

import pytest

from accounts.models import AuthToken
from matchmaking.models import Table, Ticket
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(make_user, make_client):
    _, token = make_user()
    return make_client(token)


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/v1/auth/tokens", {"name": 0, "scopes": ["read"]}, "name"),
        (
            "/api/v1/auth/tokens",
            {"name": "ci", "scopes": ["read"], "expires_in_days": "3"},
            "expires_in_days",
        ),
        (
            "/api/v1/auth/tokens",
            {"name": "ci", "scopes": ["read"], "expires_in_days": True},
            "expires_in_days",
        ),
        ("/api/v1/auth/tokens", {"name": "ci", "scopes": [1]}, "scopes"),
        ("/api/v1/matchmaking/tickets", {"preset": "weihai", "party": 0}, "party"),
        ("/api/v1/matchmaking/tickets", {"preset": "weihai", "rated": "true"}, "rated"),
        ("/api/v1/tables", {"preset": "weihai", "bots_replace_leavers": 0}, "bots_replace_leavers"),
        ("/api/v1/tables", {"preset": "weihai", "private": 1}, "private"),
        ("/api/v1/tables", {"preset": "weihai", "deals": "2"}, "deals"),
    ],
)
def test_a_value_of_another_json_type_is_refused(client, path, body, field):
    before = (AuthToken.objects.count(), Ticket.objects.count(), Table.objects.count())
    answer = client.post(path, body, format="json")
    error = assert_error(answer, 400, "invalid_request")
    assert list(error["extra"]["fields"]) == [field], error
    assert (AuthToken.objects.count(), Ticket.objects.count(), Table.objects.count()) == before


def test_the_declared_types_are_accepted(client, make_user, make_client):
    assert (
        client.post("/api/v1/auth/tokens", {"name": "ci", "scopes": ["read"]}, format="json").status_code
        == 201
    )
    created = client.post(
        "/api/v1/tables",
        {"preset": "weihai", "bots_replace_leavers": False, "private": True, "deals": 2},
        format="json",
    )
    assert created.status_code == 201, created.json()
    joined = client.post(
        f"/api/v1/tables/{created.json()['id']}/join",
        {"code": created.json()["code"], "seat": 1},
        format="json",
    )
    assert joined.status_code == 200, joined.json()
    queued = make_client(make_user()[1]).post(
        "/api/v1/matchmaking/tickets", {"preset": "weihai", "party": "friends", "rated": False}, format="json"
    )
    assert queued.status_code == 201, queued.json()


def test_a_seat_is_a_json_integer(make_table, make_user, make_client):
    _, token = make_user()
    staff_table = make_table()
    answer = make_client(token).post(
        f"/api/v1/tables/{staff_table['table']}/join", {"seat": "1"}, format="json"
    )
    error = assert_error(answer, 400, "invalid_request")
    assert list(error["extra"]["fields"]) == ["seat"]


def test_a_query_string_is_still_parsed(make_table):
    table = make_table()
    answer = table["clients"][0].get(f"/api/v1/games/{table['game']}/events?after=0&wait=0")
    assert answer.status_code == 200, answer.json()
