"""The bare baseline of bench/api_moves.py: locks and writes like a move, but leaves the deal alone."""

import pytest

from games.models import Event, Game
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db


def test_bare_endpoint_appends_a_row_and_leaves_state_and_version(make_table, make_client, make_user):
    setup = make_table()
    before = Game.objects.get(pk=setup["game"])
    response = setup["clients"][0].post(f"/api/v1/_bench/bare/{setup['game']}")
    assert response.status_code == 200
    after = Game.objects.get(pk=setup["game"])
    assert (after.version, after.state) == (before.version, before.state)
    assert after.last_seq == before.last_seq + 1
    assert Event.objects.filter(game=after, type="bench").count() == 1
    _, stranger = make_user()
    assert_error(make_client(stranger).post(f"/api/v1/_bench/bare/{setup['game']}"), 403, "permission_denied")


def test_bare_endpoint_is_not_in_the_schema(client):
    assert not any("_bench" in path for path in client.get("/api/schema/?format=json").json()["paths"])
