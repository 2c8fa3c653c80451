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


def test_the_admin_refuses_a_name_that_compares_equal_to_anothers(client):
    """Django's own user forms compare names with iexact; ours in the form they are stored under
    (accounts/usernames.py), so a clash is a form error, not a failed unique constraint."""
    admin = User.objects.create_superuser(username="root", password="correct-horse-9")
    User.objects.create_user(username="straße", password="correct-horse-9")
    client.force_login(admin)
    password = "an-admin-chosen-9"
    form = {
        "usable_password": "true",
        "password1": password,
        "password2": password,
        # The sanctions inline's management form.
        "sanctions-TOTAL_FORMS": "0",
        "sanctions-INITIAL_FORMS": "0",
    }
    page = client.post("/admin/accounts/user/add/", {**form, "username": "STRASSE"})
    assert page.status_code == 200 and "A user with that username already exists." in page.content.decode()
    assert not User.objects.filter(username="STRASSE").exists()
    fresh = client.post("/admin/accounts/user/add/", {**form, "username": "ingrid"})
    assert fresh.status_code == 302 and User.objects.get(username="ingrid").username_key == "ingrid"


def test_the_admin_sign_in_page_shares_the_api_lock_out(client, make_client, settings):
    settings.LOGIN_FAILURES_MAX = 3
    User.objects.create_superuser(username="Root", password="correct-horse-9")
    for attempt in range(3):
        page = client.post("/admin/login/", {"username": "root", "password": f"guess-{attempt}"})
        assert page.status_code == 200
    locked = client.post("/admin/login/", {"username": "ROOT", "password": "correct-horse-9"})
    assert locked.status_code == 200 and "Too many wrong passwords" in locked.content.decode()
    api = make_client().post(
        "/api/v1/auth/token", {"username": "root", "password": "correct-horse-9"}, format="json"
    )
    assert api.status_code == 429


def test_no_one_deletes_a_user_in_the_admin_not_even_a_superuser(make_table):
    """Deleting a user's row would take the tables he created, and every other player's deals at them,
    with it: the admin offers deactivation and bans instead."""
    from django.test import Client

    from accounts.models import User
    from games.models import Game
    from matchmaking.models import Table

    setup = make_table()
    creator = Table.objects.get(pk=setup["table"]).creator
    superuser = User.objects.create_superuser(username="root-admin", password="correct-horse-9")
    browser = Client()
    browser.force_login(superuser)

    assert browser.get(f"/admin/accounts/user/{creator.pk}/delete/").status_code == 403
    assert browser.post(f"/admin/accounts/user/{creator.pk}/delete/", {"post": "yes"}).status_code == 403
    listed = browser.get("/admin/accounts/user/")
    assert listed.status_code == 200 and b"delete_selected" not in listed.content
    browser.post("/admin/accounts/user/", {"action": "delete_selected", "_selected_action": [creator.pk]})

    assert User.objects.filter(pk=creator.pk).exists()
    assert Table.objects.filter(pk=setup["table"]).exists() and Game.objects.filter(pk=setup["game"]).exists()
