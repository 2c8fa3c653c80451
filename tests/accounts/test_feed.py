"""GET me/events (CONTRACT §5 "Your feed"): deal_started and your_turn, in order, as JSON and as SSE."""

import pytest
from asgiref.sync import async_to_sync

from games import engine
from games.models import Game
from tests.api.playing import get_view, post_action
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db


def _feed(client, after: int = 0) -> dict:
    response = client.get("/api/v1/me/events", {"after": after})
    assert response.status_code == 200, response.content
    return response.json()


def test_each_player_learns_his_deal_and_seat_and_the_prompted_seat_its_turn(make_table):
    setup = make_table()
    game = Game.objects.get(pk=setup["game"])
    prompted = engine.to_act(engine.from_json(game.state))
    for seat, client in enumerate(setup["clients"]):
        body = _feed(client)
        assert body["events"][0] == {
            "type": "deal_started", "table": setup["table"], "game": game.pk, "seat": seat, "seq": 1
        }
        turns = [event for event in body["events"] if event["type"] == "your_turn"]
        if seat in prompted:
            assert turns == [{"type": "your_turn", "game": game.pk, "version": game.version,
                              "deadline": turns[0]["deadline"], "seq": 2}]
            assert turns[0]["deadline"] is not None
        else:
            assert turns == []
        assert body["last_seq"] == len(body["events"])


def test_an_action_prompts_the_next_seat_and_nobody_twice(make_table):
    setup = make_table()
    before = [_feed(client)["last_seq"] for client in setup["clients"]]
    for _ in range(6):
        game = Game.objects.get(pk=setup["game"])
        state = engine.from_json(game.state)
        seat = engine.to_act(state)[0]
        view = get_view(setup["clients"][seat], game.pk)
        assert post_action(setup["clients"][seat], game.pk, view["legal_actions"][0],
                           version=view["version"]).status_code == 200
        after_state = engine.from_json(Game.objects.get(pk=game.pk).state)
        for other in engine.to_act(after_state):
            new = _feed(setup["clients"][other], before[other])["events"]
            turns = [event for event in new if event["type"] == "your_turn"]
            # A window keeps one prompt: its other seats are not prompted again by one answer.
            assert len(turns) <= 1
            if turns:
                assert turns[0]["game"] == game.pk
                assert turns[0]["version"] == Game.objects.get(pk=game.pk).version
        before = [_feed(client)["last_seq"] for client in setup["clients"]]


def test_the_feed_is_private_and_needs_a_login(make_table, make_client, make_user):
    setup = make_table()
    _, stranger = make_user()
    assert _feed(make_client(stranger)) == {"events": [], "last_seq": 0}
    assert_error(make_client().get("/api/v1/me/events"), 401, "not_authenticated")
    assert_error(setup["clients"][0].get("/api/v1/me/events", {"after": "x"}), 400, "invalid_request")


def _read_stream(response) -> str:
    async def collect():
        return b"".join([chunk async for chunk in response.streaming_content])

    return async_to_sync(collect)().decode()


def test_the_feed_as_server_sent_events(make_table, make_client, settings):
    settings.EVENTS_SSE_MAX_SECONDS = 0.3
    setup = make_table()
    response = setup["clients"][0].get("/api/v1/me/events", HTTP_ACCEPT="text/event-stream")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/event-stream")
    text = _read_stream(response)
    assert "id: 1\nevent: deal_started\ndata: " in text
    # Reconnecting with Last-Event-ID resumes after it.
    stream = {"HTTP_ACCEPT": "text/event-stream", "HTTP_LAST_EVENT_ID": "1"}
    again = setup["clients"][0].get("/api/v1/me/events", **stream)
    assert "id: 1\n" not in _read_stream(again)
    unauthenticated = make_client().get("/api/v1/me/events", HTTP_ACCEPT="text/event-stream")
    assert unauthenticated.status_code == 401
