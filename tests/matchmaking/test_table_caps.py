"""Per-user caps on creating tables (docs/security.md, docs/client-guide.md §2): `POST tables` is
throttled per user (the `tables` rate, across all his tokens) and refused `409 too_many_open_tables`
while he has TABLES_OPEN_PER_USER tables of his still waiting for players. Staff are not capped
(they prepare tournaments); the lobby's GET is not throttled; other users are unaffected."""

import pytest

from accounts import services as account_services
from accounts.scopes import Scope
from matchmaking.models import Table
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db


def _create(client, **payload):
    return client.post("/api/v1/tables", {"preset": "weihai", **payload}, format="json")


@pytest.fixture
def tables_rate(settings):
    def set_rate(rate: str) -> None:
        rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
        settings.REST_FRAMEWORK = {
            **settings.REST_FRAMEWORK,
            "DEFAULT_THROTTLE_RATES": {**rates, "tables": rate},
        }

    return set_rate


def test_creating_tables_past_the_rate_is_429_with_retry_after_across_tokens(
    make_user, make_client, tables_rate
):
    tables_rate("2/hour")
    user, token = make_user()
    _, personal = account_services.personal_token_create(
        user=user,
        name="bot",
        scopes=[Scope.TABLES, Scope.READ],
        expires_in_days=1,
        granted=frozenset(Scope.values),
    )
    assert _create(make_client(token)).status_code == 201
    assert _create(make_client(personal), private=True).status_code == 201
    refused = _create(make_client(token))
    body = assert_error(refused, 429, "throttled")
    retry_after = int(refused["Retry-After"])
    assert 1 <= retry_after <= 3601 and body["extra"]["retry_after"] == retry_after
    assert_error(_create(make_client(personal)), 429, "throttled")
    assert Table.objects.filter(creator=user).count() == 2
    # Reading the lobby is not creating: not throttled.
    assert make_client(token).get("/api/v1/tables").status_code == 200
    _, other = make_user()
    assert _create(make_client(other)).status_code == 201


def test_a_fourth_waiting_table_is_409_until_one_of_his_fills(make_user, make_client, settings):
    settings.TABLES_OPEN_PER_USER = 3
    user, token = make_user()
    client = make_client(token)
    created = [_create(client).json() for _ in range(3)]
    assert all(table["status"] == "waiting" for table in created)
    body = assert_error(_create(client, private=True), 409, "too_many_open_tables")
    assert body["extra"] == {"limit": 3}
    assert Table.objects.filter(creator=user).count() == 3
    # Another player is not counted with him.
    _, other = make_user()
    assert _create(make_client(other)).status_code == 201
    # Once one of his tables deals (five joined), it is no longer waiting: he may create again.
    first = created[0]
    for _ in range(5):
        _, player = make_user()
        joined = make_client(player).post(f"/api/v1/tables/{first['id']}/join", {}, format="json")
        assert joined.status_code == 200, joined.content
    assert _create(client).status_code == 201


def test_staff_are_not_capped(make_user, make_client, settings, tables_rate):
    settings.TABLES_OPEN_PER_USER = 1
    tables_rate("1/hour")
    _, token = make_user(staff=True)
    client = make_client(token)
    assert [_create(client).status_code for _ in range(3)] == [201, 201, 201]
