"""Penalties (docs/rules.md §5): leaving a running deal or removal by a moderator costs 40 points on the
table's score sheet, leaves a Penalty row in the player's history, and the seat plays on in trustee."""

import pytest

from games.models import Game
from matchmaking.models import Penalty, Seat, Table
from tests.conftest import assert_error
from tests.moderation.helpers import make_moderator

pytestmark = pytest.mark.django_db


def test_leaving_a_running_deal_costs_40_points_and_is_in_the_history(make_table, make_client):
    setup = make_table()
    user = setup["users"][2]
    response = setup["clients"][2].post(f"/api/v1/tables/{setup['table']}/leave")
    assert response.status_code == 200
    table = Table.objects.get(pk=setup["table"])
    assert table.scores[2] == -40
    game = Game.objects.get(pk=setup["game"])
    assert game.trustee[2] is True and game.left[2] is True
    penalty = Penalty.objects.get()
    assert (penalty.user_id, penalty.table_id, penalty.game_id, penalty.seat) == (
        user.pk,
        table.pk,
        game.pk,
        2,
    )
    assert (penalty.points, penalty.reason, penalty.moderator_id) == (40, "left", None)

    history = setup["clients"][2].get(f"/api/v1/users/{user.pk}/history")
    assert history.status_code == 200
    (item,) = history.json()["penalties"]
    assert item["points"] == 40 and item["reason"] == "left"
    assert item["table"] == table.pk and item["game"] == game.pk and item["seat"] == 2


def test_leaving_before_the_deal_starts_costs_nothing(make_user, make_client):
    _, staff_token = make_user(staff=True)
    table = make_client(staff_token).post("/api/v1/tables", {"preset": "weihai"}, format="json").json()
    _, token = make_user()
    client = make_client(token)
    assert (
        client.post(f"/api/v1/tables/{table['id']}/join", {"code": table["code"]}, format="json").status_code
        == 200
    )
    assert client.post(f"/api/v1/tables/{table['id']}/leave").status_code == 200
    assert Penalty.objects.count() == 0


def test_a_moderator_removes_a_player_with_the_same_penalty(make_table, make_user, make_client):
    setup = make_table()
    user = setup["users"][4]
    _, moderator = make_moderator(make_user, make_client)
    response = moderator.post(f"/api/v1/tables/{setup['table']}/seats/4/remove")
    assert response.status_code == 200, response.json()
    assert response.json()["scores"][4] == -40
    assert not Seat.objects.filter(table_id=setup["table"], seat=4).exists()
    penalty = Penalty.objects.get()
    assert penalty.user_id == user.pk and penalty.reason == "removed" and penalty.moderator is not None
    assert Game.objects.get(pk=setup["game"]).trustee[4] is True
    staff_view = setup["staff"].get(f"/api/v1/users/{user.pk}/history").json()
    assert staff_view["penalties"][0]["reason"] == "removed"


def test_only_moderators_remove_players_and_nothing_changes_otherwise(make_table, make_user, make_client):
    """docs/moderation.md: the API needs `is_staff` and the `matchmaking.remove_player` right, as the
    admin does; staff without the right (the table's creator here) and players are refused."""
    setup = make_table()
    url = f"/api/v1/tables/{setup['table']}/seats/4/remove"
    assert_error(setup["clients"][0].post(url), 403, "permission_denied")
    assert_error(setup["staff"].post(url), 403, "permission_denied")
    assert Seat.objects.filter(table_id=setup["table"]).count() == 5
    assert Penalty.objects.count() == 0
    assert Table.objects.get(pk=setup["table"]).scores == [0] * 5
    _, moderator = make_moderator(make_user, make_client)
    assert_error(moderator.post("/api/v1/tables/999999/seats/1/remove"), 404, "not_found")


def test_others_cannot_read_a_players_penalties(make_table, make_user, make_client):
    setup = make_table()
    setup["clients"][1].post(f"/api/v1/tables/{setup['table']}/leave")
    _, token = make_user()
    assert_error(
        make_client(token).get(f"/api/v1/users/{setup['users'][1].pk}/history"), 403, "permission_denied"
    )
    assert_error(setup["staff"].get("/api/v1/users/999999999/history"), 404, "not_found")


def test_the_admin_removes_players_and_lists_penalties(make_table, client):
    from accounts.models import User

    setup = make_table()
    admin_user = User.objects.create_superuser(username="mod", password="correct-horse-9")
    client.force_login(admin_user)
    row = Seat.objects.get(table_id=setup["table"], seat=3)
    response = client.post(
        "/admin/matchmaking/seat/",
        {"action": "remove_players", "_selected_action": [row.pk], "apply": "1", "reason": "abusive chat"},
        follow=True,
    )
    assert response.status_code == 200
    penalty = Penalty.objects.get()
    assert penalty.reason == "removed" and penalty.moderator_id == admin_user.pk and penalty.seat == 3
    assert Table.objects.get(pk=setup["table"]).scores[3] == -40
    for page in (
        "/admin/matchmaking/penalty/",
        f"/admin/matchmaking/penalty/{penalty.pk}/change/",
        "/admin/matchmaking/seat/",
        "/admin/accounts/rating/",
        "/admin/accounts/ratingchange/",
        "/admin/accounts/sidebias/",
    ):
        assert client.get(page).status_code == 200, page
