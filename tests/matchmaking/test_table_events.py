"""GET tables/{id}/events (docs/matchmaking.md "Table events"): how a client follows a table from seat to seat
and deal to deal, and learns the next deal's id without polling the table."""

import random

import pytest

from games.models import Game, GameStatus
from tests.api.playing import play_deal
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db


def _events(client, table_id: int, after: int = 0) -> dict:
    response = client.get(f"/api/v1/tables/{table_id}/events", {"after": after})
    assert response.status_code == 200, response.content
    return response.json()


def test_the_log_shows_seating_each_deal_and_the_next_deals_id(make_table):
    setup = make_table(deals=2)
    first = play_deal(setup["clients"], setup["game"], random.Random(21))
    assert first.status == GameStatus.OVER, "this seed's deal must be played out"
    body = _events(setup["clients"][0], setup["table"])
    types = [event["type"] for event in body["events"]]
    assert types[:6] == ["seat_taken"] * 5 + ["deal_started"]
    assert [event["seat"] for event in body["events"][:5]] == [0, 1, 2, 3, 4]
    taken = body["events"][0]["user"]
    assert taken == {"id": setup["users"][0].pk, "username": setup["users"][0].username, "is_bot": False}
    assert body["events"][5]["game"] == first.pk and body["events"][5]["number"] == 0
    over = next(event for event in body["events"] if event["type"] == "deal_over")
    assert over == {"type": "deal_over", "game": first.pk, "scores": first.final["scores"], "unscored": False,
                    "seq": over["seq"]}
    second = Game.objects.get(table_id=setup["table"], number=1)
    started = body["events"][types.index("deal_over") + 1]
    assert started["type"] == "deal_started" and started["game"] == second.pk and started["number"] == 1
    assert [event["seq"] for event in body["events"]] == list(range(1, len(types) + 1))
    assert body["last_seq"] == len(types)
    # Nothing after the last seq: an empty page with the same cursor.
    assert _events(setup["clients"][0], setup["table"], after=body["last_seq"]) == {
        "events": [], "last_seq": body["last_seq"]
    }


def test_leaving_shows_in_the_log_and_the_table_closes_with_its_reason(make_table, make_user, make_client):
    setup = make_table()
    left = setup["clients"][2].post(f"/api/v1/tables/{setup['table']}/leave", {}, format="json")
    assert left.status_code == 200
    game = play_deal(setup["clients"], setup["game"], random.Random(5))
    assert game.left == [False, False, True, False, False]
    body = _events(setup["clients"][0], setup["table"])
    types = [event["type"] for event in body["events"]]
    assert "seat_left" in types and types[-1] == "table_closed"
    assert body["events"][types.index("seat_left")]["seat"] == 2
    assert body["events"][-1]["reason"] in ("player_left", "trustee")
    # The player who left still reads how the table ended.
    assert _events(setup["clients"][2], setup["table"])["last_seq"] == body["last_seq"]


def test_a_private_tables_log_is_for_its_members(make_table, make_user, make_client):
    setup = make_table(private=True)
    _, outsider = make_user()
    url = f"/api/v1/tables/{setup['table']}/events"
    assert_error(make_client(outsider).get(url), 403, "permission_denied")
    assert_error(make_client(outsider).get("/api/v1/tables/999999/events"), 404, "not_found")
    assert_error(setup["clients"][0].get(f"/api/v1/tables/{setup['table']}/events", {"after": -1}), 400,
                 "invalid_request")


def test_with_bots_replacing_leavers_a_bot_takes_the_seat_and_the_table_plays_on(make_table):
    """The table setting `bots_replace_leavers` (docs/matchmaking.md "Bots"): the leaver pays his 40 points,
    his seat plays on in trustee to the end of the deal, then a bot sits there and the next deal is
    dealt with a bot seat (it acts from the worker, games.services.game_bots_act)."""
    # Fixed seeds: the first deal (played by random legal moves from a fixed stream) is played out.
    setup = make_table(deals=3, bots_replace_leavers=True, setups=[{"seed": 11}, {"seed": 12}, {"seed": 13}])
    assert setup["staff"].get(f"/api/v1/tables/{setup['table']}").json()["bots_replace_leavers"] is True
    left = setup["clients"][1].post(f"/api/v1/tables/{setup['table']}/leave", {}, format="json")
    assert left.status_code == 200
    first = play_deal(setup["clients"], setup["game"], random.Random(8))
    assert first.status == GameStatus.OVER, "this seed's deal must be played out"
    table = setup["staff"].get(f"/api/v1/tables/{setup['table']}").json()
    assert table["status"] == "playing" and table["closed_reason"] is None
    assert table["seats"][1]["user"]["is_bot"] is True
    assert table["scores"][1] == first.final["scores"][1] - 40
    second = Game.objects.get(pk=table["current_game"])
    assert second.bots == [False, True, False, False, False] and second.left == [False] * 5
    body = _events(setup["clients"][0], setup["table"])
    seated = [event for event in body["events"] if event["type"] == "seat_taken" and event["seat"] == 1]
    assert len(seated) == 2 and seated[-1]["user"]["is_bot"] is True
