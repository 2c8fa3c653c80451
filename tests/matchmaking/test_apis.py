import pytest

from games.models import Game, GameStatus
from matchmaking.models import Seat, Table, TableStatus
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db


def _create(client, **payload):
    return client.post("/api/v1/tables", {"preset": "weihai", **payload}, format="json")


def test_create_table_does_not_seat_the_creator(make_client, make_user):
    _, token = make_user()
    response = _create(make_client(token), settings={"play_seconds": 30, "prompt_seconds": 10})
    assert response.status_code == 201
    body = response.json()
    assert body["code"] and body["status"] == "waiting"
    assert body["settings"] == {
        "play_seconds": 30, "prompt_seconds": 10, "deal_pause_seconds": 8, "return_seconds": 90
    }
    assert all(seat["user"] is None for seat in body["seats"])
    assert body["scores"] == [0] * 5 and body["games"] == [] and body["current_game"] is None


def test_a_table_may_ask_for_a_bot_level(make_client, make_user):
    _, token = make_user()
    client = make_client(token)
    assert _create(client).json()["bot_level"] is None  # the server's BOTS_LEVEL
    body = _create(client, bot_level="hard").json()
    assert body["bot_level"] == "hard" and Table.objects.get(pk=body["id"]).bot_level == "hard"


def test_default_settings_and_campus_match_length(make_client, make_user):
    _, token = make_user()
    body = _create(make_client(token), preset="campus").json()
    assert body["settings"] == {
        "play_seconds": 20, "prompt_seconds": 15, "deal_pause_seconds": 8, "return_seconds": 90
    }
    assert body["deals"] == 6
    assert _create(make_client(token)).json()["deals"] == 0


@pytest.mark.parametrize(
    "payload",
    [
        {"preset": "nope"},
        {"preset": "weihai", "options": {"no_such_option": True}},
        {"preset": "weihai", "colour": "red"},
        {"preset": "weihai", "settings": {"play_seconds": 0}},
        {"preset": "weihai", "deals": -1},
        {"preset": "weihai", "bot_level": "grandmaster"},
        {"preset": "weihai", "bot_level": True},
    ],
)
def test_bad_table_requests_are_400_and_create_nothing(make_client, make_user, payload):
    _, token = make_user()
    assert_error(make_client(token).post("/api/v1/tables", payload, format="json"), 400, "invalid_request")
    assert not Table.objects.exists()


def test_setups_are_staff_only(make_client, make_user):
    _, token = make_user()
    response = _create(make_client(token), setups=[{"seed": 1}])
    assert_error(response, 403, "permission_denied")
    assert not Table.objects.exists()


def test_fifth_join_starts_the_first_deal_at_seat_0(make_table):
    setup = make_table()
    detail = setup["staff"].get(f"/api/v1/tables/{setup['table']}").json()
    assert detail["status"] == "playing"
    assert [seat["user"]["id"] for seat in detail["seats"]] == [u.pk for u in setup["users"]]
    game = Game.objects.get(pk=detail["current_game"])
    assert game.setup["start_seat"] == 0 and game.number == 0
    assert detail["games"] == [
        {"id": game.pk, "number": 0, "status": "running", "scores": None, "unscored": False}
    ]


def test_join_taken_seat_is_409_and_changes_nothing(make_client, make_user):
    _, creator = make_user()
    table = _create(make_client(creator)).json()
    _, first = make_user()
    _, second = make_user()
    join = f"/api/v1/tables/{table['id']}/join"
    assert make_client(first).post(join, {"code": table["code"], "seat": 3}, format="json").status_code == 200
    response = make_client(second).post(join, {"code": table["code"], "seat": 3}, format="json")
    assert_error(response, 409, "seat_taken")
    assert list(Seat.objects.values_list("seat", flat=True)) == [3]


def test_joining_twice_is_409(make_client, make_user):
    _, creator = make_user()
    table = _create(make_client(creator)).json()
    _, token = make_user()
    join = f"/api/v1/tables/{table['id']}/join"
    make_client(token).post(join, {"code": table["code"]}, format="json")
    assert_error(make_client(token).post(join, {"code": table["code"]}, format="json"), 409, "seat_taken")
    assert Seat.objects.count() == 1


def test_sixth_player_gets_table_full_or_closed(make_table, make_client, make_user):
    setup = make_table()
    _, token = make_user()
    response = make_client(token).post(
        f"/api/v1/tables/{setup['table']}/join", {"code": setup["code"]}, format="json"
    )
    assert response.status_code == 409 and response.json()["code"] in {"table_full", "table_closed"}
    assert Seat.objects.filter(table_id=setup["table"]).count() == 5


def test_a_private_table_fills_deals_at_the_fifth_and_refuses_a_sixth(make_client, make_user):
    """Fill four (a wrong or missing code is refused meanwhile), then the fifth join deals the first
    deal and the table stops taking players: a sixth gets 409 table_closed and changes nothing."""
    _, creator = make_user()
    table = _create(make_client(creator), private=True).json()
    join = f"/api/v1/tables/{table['id']}/join"
    for _ in range(4):
        _, token = make_user()
        assert make_client(token).post(join, {"code": table["code"]}, format="json").status_code == 200
    _, intruder = make_user()
    assert_error(make_client(intruder).post(join, {"code": "wrong"}, format="json"), 403, "permission_denied")
    assert_error(make_client(intruder).post(join, {}, format="json"), 403, "permission_denied")
    assert Seat.objects.count() == 4 and not Game.objects.exists()
    _, fifth = make_user()
    assert make_client(fifth).post(join, {"code": table["code"]}, format="json").status_code == 200
    assert Table.objects.get(pk=table["id"]).status == TableStatus.PLAYING
    assert Game.objects.filter(table_id=table["id"], status=GameStatus.RUNNING).count() == 1
    _, sixth = make_user()
    assert_error(make_client(sixth).post(join, {"code": table["code"]}, format="json"), 409, "table_closed")
    assert Seat.objects.count() == 5 and Game.objects.count() == 1


def test_five_seats_at_a_waiting_table_refuse_a_sixth_as_table_full(make_client, make_user):
    """The guard behind the fifth join: should five seats ever be taken while the table still waits
    (the fifth join deals, so the API alone never leaves it so), a sixth is `409 table_full`."""
    _, creator = make_user()
    table = _create(make_client(creator)).json()
    for seat in range(5):
        Seat.objects.create(table_id=table["id"], seat=seat, user=make_user()[0])
    _, sixth = make_user()
    join = f"/api/v1/tables/{table['id']}/join"
    assert_error(make_client(sixth).post(join, {"code": table["code"]}, format="json"), 409, "table_full")
    assert Seat.objects.count() == 5 and not Game.objects.exists()


def test_private_table_is_hidden_from_strangers(make_client, make_user):
    _, creator = make_user()
    table = _create(make_client(creator), private=True).json()
    _, stranger = make_user()
    assert_error(make_client(stranger).get(f"/api/v1/tables/{table['id']}"), 403, "permission_denied")
    assert make_client(creator).get(f"/api/v1/tables/{table['id']}").json()["code"] == table["code"]


def test_unknown_table_is_404(make_client, make_user):
    _, token = make_user()
    assert_error(make_client(token).get("/api/v1/tables/999999"), 404, "not_found")
    assert_error(make_client(token).post("/api/v1/tables/999999/join", {}, format="json"), 404, "not_found")


def test_leave_before_the_deal_frees_the_seat(make_client, make_user):
    _, creator = make_user()
    table = _create(make_client(creator)).json()
    _, token = make_user()
    client = make_client(token)
    client.post(f"/api/v1/tables/{table['id']}/join", {"code": table["code"]}, format="json")
    response = client.post(f"/api/v1/tables/{table['id']}/leave")
    assert response.status_code == 200
    assert not Seat.objects.exists()
    assert_error(client.post(f"/api/v1/tables/{table['id']}/leave"), 403, "permission_denied")


def test_leaving_a_running_deal_costs_40_and_puts_the_seat_on_trustee(make_table):
    setup = make_table()
    response = setup["clients"][2].post(f"/api/v1/tables/{setup['table']}/leave")
    assert response.status_code == 200
    body = response.json()
    assert body["scores"] == [0, 0, -40, 0, 0]
    assert body["seats"][2]["user"] is None and body["seats"][2]["trustee"] is True
    game = Game.objects.get(pk=setup["game"])
    assert game.left[2] is True and game.trustee[2] is True
    # The leaver no longer acts in the deal; trying to take trustee off is refused too.
    assert_error(
        setup["clients"][2].post(f"/api/v1/games/{setup['game']}/trustee", {"on": False}, format="json"),
        403,
        "permission_denied",
    )
