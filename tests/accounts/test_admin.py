"""The admin: hidden cards only for those allowed to see them (moderation: tests/moderation)."""

import pytest
from django.contrib.auth.models import Permission

from accounts.models import Sanction, User

pytestmark = pytest.mark.django_db


def _staff(client, make_user, *perms):
    user, _ = make_user(staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=perms))
    client.force_login(user)
    return user


def test_game_page_hides_cards_from_moderators(client, make_user, make_table):
    setup = make_table()
    _staff(client, make_user, "view_game", "view_event")
    page = client.get(f"/admin/games/game/{setup['game']}/change/").content.decode()
    assert "hands" not in page and "seed" not in page


def test_game_page_shows_cards_to_superusers(client, make_table):
    setup = make_table()
    admin = User.objects.create_superuser(username="root", password="correct-horse-9")
    client.force_login(admin)
    page = client.get(f"/admin/games/game/{setup['game']}/change/").content.decode()
    assert "seed" in page


def test_banned_player_cannot_act(make_table, make_client):
    setup = make_table()
    Sanction.objects.create(user=setup["users"][0], kind="ban", reason="test")
    response = setup["clients"][0].post(
        f"/api/v1/games/{setup['game']}/actions", {"type": "pass"}, format="json"
    )
    assert response.status_code == 403 and response.json()["code"] == "banned"
