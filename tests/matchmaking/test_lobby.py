"""The lobby, `GET tables` (docs/matchmaking.md "Lobby"): public tables only, newest first, by cursor."""

import pytest

from matchmaking import bots, services
from matchmaking.models import Table, TableStatus
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db

LOBBY = "/api/v1/tables"


@pytest.fixture
def viewer(make_user, make_client):
    return make_client(make_user()[1])


@pytest.fixture
def creator(make_user):
    return make_user()[0]


def _ids(body: dict) -> list[int]:
    return [row["id"] for row in body["results"]]


def test_the_lobby_lists_only_public_waiting_tables_newest_first(viewer, creator, make_table):
    older = services.table_create(creator=creator, preset="weihai", options={})
    services.table_create(creator=creator, preset="weihai", options={}, private=True)
    newer = services.table_create(creator=creator, preset="campus", options={})
    matched = services.table_create(creator=creator, preset="weihai", options={})
    Table.objects.filter(pk=matched.pk).update(matched=True)
    playing = make_table()["table"]
    body = viewer.get(LOBBY).json()
    assert _ids(body) == [newer.pk, older.pk] and body["next"] is None
    assert playing not in _ids(viewer.get(f"{LOBBY}?status=waiting").json())
    assert _ids(viewer.get(f"{LOBBY}?status=playing").json()) == [playing]


def test_quick_matches_in_play_are_listed_apart_to_watch(viewer, creator, make_table):
    """`matched=true` lists the tables the matchmaker filled (docs/client-guide.md §2): a spectator
    finds a quick match to watch; they never mix with the tables one may join."""
    quick = make_table()["table"]
    Table.objects.filter(pk=quick).update(matched=True)
    created = make_table()["table"]
    services.table_create(creator=creator, preset="weihai", options={}, private=True)
    assert _ids(viewer.get(f"{LOBBY}?status=playing&matched=true").json()) == [quick]
    assert _ids(viewer.get(f"{LOBBY}?status=playing").json()) == [created]
    assert _ids(viewer.get(f"{LOBBY}?status=playing&matched=false").json()) == [created]
    assert _ids(viewer.get(f"{LOBBY}?matched=true").json()) == []
    assert_error(viewer.get(f"{LOBBY}?matched=maybe"), 400, "invalid_request")


def test_the_lobby_filters_by_preset(viewer, creator):
    weihai = services.table_create(creator=creator, preset="weihai", options={})
    services.table_create(creator=creator, preset="campus", options={})
    assert _ids(viewer.get(f"{LOBBY}?preset=weihai").json()) == [weihai.pk]
    assert _ids(viewer.get(f"{LOBBY}?preset=laowang").json()) == []


def test_an_empty_preset_is_no_filter(viewer, creator):
    """`GET tables?status=waiting&preset=` as a client builds it with no preset chosen (docs/client-guide.md
    §2); an unknown preset is still refused."""
    weihai = services.table_create(creator=creator, preset="weihai", options={})
    campus = services.table_create(creator=creator, preset="campus", options={})
    response = viewer.get(f"{LOBBY}?status=waiting&preset=")
    assert response.status_code == 200, response.json()
    assert _ids(response.json()) == [campus.pk, weihai.pk]
    assert_error(viewer.get(f"{LOBBY}?preset=nope"), 400, "invalid_request")


def test_the_lobby_pages_by_cursor_without_gaps_or_repeats(viewer, creator):
    made = [services.table_create(creator=creator, preset="weihai", options={}).pk for _ in range(45)]
    seen, cursor, pages = [], None, 0
    while True:
        body = viewer.get(LOBBY, {"cursor": cursor} if cursor else {}).json()
        assert len(body["results"]) <= 20
        seen += _ids(body)
        pages += 1
        cursor = body["next"]
        if cursor is None:
            break
    assert pages == 3
    assert seen == sorted(made, reverse=True)


def test_a_lobby_row_has_the_table_shape_and_seats_show_is_bot(viewer, creator, make_user):
    table = services.table_create(creator=creator, preset="weihai", options={})
    human, _ = make_user()
    services.table_join(table_id=table.pk, user=human, seat=1)
    bot = bots.bot_user_create()
    services.table_join(table_id=table.pk, user=bot, seat=3)
    row = viewer.get(LOBBY).json()["results"][0]
    detail = viewer.get(f"{LOBBY}/{table.pk}").json()
    assert row == detail
    assert row["status"] == TableStatus.WAITING and row["code"] == table.code
    assert row["seats"][1]["user"] == {"id": human.pk, "username": human.username, "is_bot": False}
    assert row["seats"][3]["user"] == {"id": bot.pk, "username": bot.username, "is_bot": True}
    assert row["seats"][0]["user"] is None


@pytest.mark.parametrize(
    "query",
    ["status=open", "preset=nope", "cursor=not-a-cursor", "status=waiting&preset=Weihai"],
)
def test_unknown_status_preset_or_cursor_is_400(viewer, creator, query):
    services.table_create(creator=creator, preset="weihai", options={})
    assert_error(viewer.get(f"{LOBBY}?{query}"), 400, "invalid_request")


def test_the_lobby_needs_a_token(make_client):
    assert_error(make_client().get(LOBBY), 401, "not_authenticated")


def test_a_bot_user_cannot_log_in(make_client):
    bot = bots.bot_user_create()
    assert bot.is_bot and not bot.has_usable_password()
    response = make_client().post(
        "/api/v1/auth/token", {"username": bot.username, "password": ""}, format="json"
    )
    assert response.status_code == 400 and "token" not in response.json()
