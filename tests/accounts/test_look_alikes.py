"""Look-alike usernames (docs/security.md): a name whose Unicode TR 39 skeleton is another user's, or
looks like a reserved name (the `guest-` prefix, the server bots' `bot-` and ten hex digits), is
refused wherever a name is chosen: registration, bot accounts, the admin's user forms
(accounts/usernames.py)."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from accounts.models import User
from accounts.usernames import username_resembles_reserved, username_skeleton
from matchmaking.bots import bot_user_create
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db

PASSWORD = "s3cret-pass"
CYRILLIC_A, CYRILLIC_E, CYRILLIC_O = "\u0430", "\u0435", "\u043e"


def _register(client, username):
    return client.post("/api/v1/auth/register", {"username": username, "password": PASSWORD}, format="json")


def _refused_as_too_similar(response, *, names_not_revealed=()) -> None:
    body = assert_error(response, 400, "invalid_request")
    assert body["message"] == "That username is too similar to an existing or reserved one."
    assert body["extra"] == {"fields": {"username": ["too similar"]}}
    for name in names_not_revealed:
        assert name not in response.content.decode()


@pytest.mark.parametrize(
    "copy",
    [
        f"b{CYRILLIC_O}ris",  # Cyrillic о
        f"B{CYRILLIC_O.upper()}RIS",  # and in another case
        f"b{CYRILLIC_O}r\u0456s",  # Cyrillic о and і
    ],
)
def test_a_cyrillic_copy_of_an_existing_name_is_refused(make_client, copy):
    assert _register(make_client(), "boris").status_code == 201
    users = User.objects.count()
    _refused_as_too_similar(_register(make_client(), copy), names_not_revealed=["boris"])
    assert User.objects.count() == users


@pytest.mark.parametrize("copy", [f"{CYRILLIC_A}dmin", f"{CYRILLIC_A}dm\u0456n", "ADM\u0406N", "Adrnin"])
def test_a_look_alike_of_a_staff_name_is_refused(make_client, make_user, copy):
    make_user(staff=True, username="Admin")
    users = User.objects.count()
    _refused_as_too_similar(_register(make_client(), copy), names_not_revealed=["Admin"])
    assert User.objects.count() == users


def test_a_capital_i_for_an_l_is_a_look_alike(make_client, make_user):
    make_user(staff=True, username="Alice")
    _refused_as_too_similar(_register(make_client(), "AIice"), names_not_revealed=["Alice"])


@pytest.mark.parametrize(
    "name",
    [
        f"gu{CYRILLIC_E}st-x",
        f"gu{CYRILLIC_E}st-5f3a9c2b1d0e",
        f"GU{CYRILLIC_E.upper()}ST-x",
        "gu\u0435\u0455t-x",  # Cyrillic е and ѕ
    ],
)
def test_a_look_alike_of_the_guest_prefix_is_refused(make_client, name):
    _refused_as_too_similar(_register(make_client(), name))
    assert not User.objects.exists()


@pytest.mark.parametrize(
    "name",
    ["bot-0123456789", "bot-abcdef0123", "BOT-0123456789", "bot-o12345678a", f"b{CYRILLIC_O}t-0123456789"],
)
def test_the_server_bots_pattern_is_reserved(make_client, name):
    _refused_as_too_similar(_register(make_client(), name))
    assert not User.objects.exists()


def test_a_server_bots_name_is_the_reserved_pattern():
    bot = bot_user_create()
    assert bot.username_skeleton == username_skeleton(bot.username)
    assert username_resembles_reserved(bot.username)


@pytest.mark.parametrize(
    "name",
    [
        "李华",
        "王小明",
        "张伟",
        "Zoë",
        "Σοφία",
        "bot-builder",
        "bot-01234",
        "guesthouse",
        "borisa",
        "admin2",
        "ｌｉｕ",
    ],
)
def test_ordinary_distinct_names_are_still_accepted(make_client, make_user, name):
    make_user(username="boris")
    make_user(staff=True, username="admin")
    make_user(username="李小华")
    response = _register(make_client(), name)
    assert response.status_code == 201, response.content
    user = User.objects.get(pk=response.json()["user"]["id"])
    assert user.username_skeleton == username_skeleton(user.username)


def test_guests_get_names_and_skeletons(make_client):
    response = make_client().post("/api/v1/auth/guest")
    assert response.status_code == 201
    user = User.objects.get(pk=response.json()["user"]["id"])
    assert user.username.startswith("guest-") and user.username_skeleton == username_skeleton(user.username)


def test_a_bot_account_may_not_look_like_another_user(make_client, make_user):
    staff, token = make_user(staff=True, username="operator")
    owner, _ = make_user(username="vendor")
    make_user(username="club-bot")
    users = User.objects.count()
    response = make_client(token).post(
        "/api/v1/bots", {"username": f"club-b{CYRILLIC_O}t", "owner": owner.pk}, format="json"
    )
    _refused_as_too_similar(response, names_not_revealed=["club-bot"])
    assert User.objects.count() == users


def _admin_client(client):
    admin = User.objects.create_superuser(username="root", password="correct-horse-9")
    client.force_login(admin)
    return admin


ADMIN_ADD_FORM = {
    "usable_password": "true",
    "password1": "an-admin-chosen-9",
    "password2": "an-admin-chosen-9",
    "sanctions-TOTAL_FORMS": "0",
    "sanctions-INITIAL_FORMS": "0",
}


@pytest.mark.parametrize("name", [f"r{CYRILLIC_O}{CYRILLIC_O}t", f"gu{CYRILLIC_E}st-1", "bot-0123456789"])
def test_the_admin_cannot_create_a_look_alike(client, name):
    _admin_client(client)
    page = client.post("/admin/accounts/user/add/", {**ADMIN_ADD_FORM, "username": name})
    assert page.status_code == 200
    assert [error.code for error in page.context["adminform"].form.errors.as_data()["username"]] == [
        "similar"
    ]
    assert not User.objects.filter(username=name).exists()


def _change_form(user) -> dict:
    return {
        "username": user.username,
        "first_name": "",
        "last_name": "",
        "email": "",
        "is_active": "on",
        "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
        "date_joined_1": user.date_joined.strftime("%H:%M:%S"),
        "sanctions-TOTAL_FORMS": "0",
        "sanctions-INITIAL_FORMS": "0",
    }


def test_the_admin_cannot_rename_a_user_to_a_look_alike_but_keeps_unchanged_names(client, make_user):
    _admin_client(client)
    make_user(username="boris")
    guest = User.objects.create(username="guest-0123456789ab", is_guest=True)
    victim, _ = make_user(username="dora")
    page = client.post(
        f"/admin/accounts/user/{victim.pk}/change/", {**_change_form(victim), "username": f"b{CYRILLIC_O}ris"}
    )
    assert page.status_code == 200
    assert [error.code for error in page.context["adminform"].form.errors.as_data()["username"]] == [
        "similar"
    ]
    victim.refresh_from_db()
    assert victim.username == "dora"
    # A guest's reserved name, unchanged, saves as it is.
    page = client.post(f"/admin/accounts/user/{guest.pk}/change/", _change_form(guest))
    assert page.status_code == 302
    renamed = client.post(
        f"/admin/accounts/user/{victim.pk}/change/", {**_change_form(victim), "username": "dorothy"}
    )
    assert renamed.status_code == 302
    victim.refresh_from_db()
    assert victim.username_skeleton == username_skeleton("dorothy")


@pytest.mark.django_db(transaction=True)
def test_existing_users_get_their_skeletons_in_the_migration():
    before = [("accounts", "0013_moderationaction_refused")]
    after = [("accounts", "0014_user_username_skeleton")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    OldUser = executor.loader.project_state(before).apps.get_model("accounts", "User")
    names = ["admin", f"{CYRILLIC_A}dmin", "李华", "guest-abcdef123456", "bot-0123456789"]
    old = {
        OldUser.objects.create(username=name, username_key=name.casefold(), password="x").pk: name
        for name in names
    }

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(after)
    User = executor.loader.project_state(after).apps.get_model("accounts", "User")
    stored = dict(User.objects.values_list("pk", "username_skeleton"))
    assert stored == {pk: username_skeleton(name) for pk, name in old.items()}
    # Older look-alikes keep their names; they share a skeleton, which the index does not forbid.
    assert stored[min(old)] == stored[min(old) + 1] == "adrnin"
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
