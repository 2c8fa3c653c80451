"""GET me/events (docs/matchmaking.md "Your feed"): deal_started and your_turn, in order, as JSON (the
stream form is the event server's: tests/events/test_streams.py)."""

import pytest

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
            view = get_view(client, game.pk)
            assert turns == [{"type": "your_turn", "game": game.pk, "table": setup["table"], "seat": seat,
                              "version": game.version,
                              "deadline": view["deadline"], "legal_actions": view["legal_actions"],
                              "seq": 2}]
            assert turns[0]["deadline"] is not None and turns[0]["legal_actions"]
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


def test_a_prompted_player_answers_from_his_your_turn_entry_without_reading_his_view(make_table):
    """`your_turn` carries the seat's legal actions at its version (API 1.2.0): a client posts one
    straight away. A window's other seats are not prompted again when one answers, and their entry's
    version stays current until the window closes (API 1.3.0): every prompt of the deal's opening,
    windows included, is answered from its entry alone, never a view read and never a 409."""
    setup = make_table()
    seen = [0] * 5
    answered_from_entry = answered_in_windows_at_an_older_version = 0
    for _ in range(40):
        game = Game.objects.get(pk=setup["game"])
        if game.status != "running":
            break
        # The first prompted seat (in seat order) with an unanswered entry answers from it.
        for seat, client in enumerate(setup["clients"]):
            turns = [e for e in _feed(client, seen[seat])["events"] if e["type"] == "your_turn"]
            if turns:
                break
        else:
            break
        seen[seat] = turns[-1]["seq"]
        entry = turns[-1]
        response = post_action(client, game.pk, entry["legal_actions"][-1], version=entry["version"])
        assert response.status_code == 200, response.content[:200]
        answered_from_entry += 1
        answered_in_windows_at_an_older_version += entry["version"] < game.version
    assert answered_from_entry >= 10, answered_from_entry
    assert answered_in_windows_at_an_older_version >= 1


def test_the_feed_is_private_and_needs_a_login(make_table, make_client, make_user):
    setup = make_table()
    _, stranger = make_user()
    assert _feed(make_client(stranger)) == {"events": [], "last_seq": 0}
    assert_error(make_client().get("/api/v1/me/events"), 401, "not_authenticated")
    assert_error(setup["clients"][0].get("/api/v1/me/events", {"after": "x"}), 400, "invalid_request")


def test_the_web_role_leaves_streams_to_the_event_server(make_table):
    # A stream is the events role's (events/streams.py, tests/events/test_streams.py); the web role
    # refuses it in the one error shape rather than holding a thread for it.
    setup = make_table()
    answer = setup["clients"][0].get("/api/v1/me/events", HTTP_ACCEPT="text/event-stream")
    assert_error(answer, 406, "not_acceptable")


def test_a_cursor_past_the_newest_entry_is_refused_with_where_the_feed_ends(make_table):
    """A cursor that was echoed back would skip every entry until the feed caught up with it."""
    setup = make_table()
    client = setup["clients"][0]
    newest = _feed(client)["last_seq"]
    assert newest > 0

    body = assert_error(client.get("/api/v1/me/events", {"after": newest + 1}), 409, "feed_cursor_ahead")

    assert body["extra"] == {"last_seq": newest}
    assert _feed(client, newest) == {"events": [], "last_seq": newest}


def test_me_active_tells_where_to_follow_the_feed_from_now_on(make_table):
    setup = make_table()
    game = Game.objects.get(pk=setup["game"])
    starts = [client.get("/api/v1/me/active").json()["feed_last_seq"] for client in setup["clients"]]
    assert starts == [_feed(client)["last_seq"] for client in setup["clients"]]
    assert all(start > 0 for start in starts)

    seat = engine.to_act(engine.from_json(game.state))[0]
    view = get_view(setup["clients"][seat], game.pk)
    response = post_action(setup["clients"][seat], game.pk, view["legal_actions"][0], version=view["version"])
    assert response.status_code == 200

    prompted = set(engine.to_act(engine.from_json(Game.objects.get(pk=game.pk).state)))
    for other, client in enumerate(setup["clients"]):
        # From "now": nothing that came before, and exactly the new prompt for the seats it asks.
        types = [entry["type"] for entry in _feed(client, starts[other])["events"]]
        # The mover is told his prompt closed (a second device of his stops showing it).
        expected = ["prompt_closed"] if other == seat else ["your_turn"] if other in prompted else []
        assert types == expected, (other, types)


def test_a_cursor_older_than_the_entries_kept_is_refused_and_zero_reads_the_oldest_kept(
    make_user, make_client
):
    from accounts import feed

    user, token = make_user()
    client = make_client(token)
    total = feed.FEED_KEEP + 60
    for number in range(total):
        feed.feed_append(
            user_id=user.pk, type="sanction", data={"kind": "warning", "expires_at": None, "n": number}
        )
    first = _feed(client, 0)["events"][0]["seq"]  # after=0: from the oldest entry kept
    assert 1 < first <= total - feed.FEED_KEEP + 1

    body = assert_error(client.get("/api/v1/me/events", {"after": first - 2}), 410, "feed_cursor_expired")
    assert body["extra"] == {"last_seq": total}
    assert _feed(client, first - 1)["events"][0]["seq"] == first
    assert _feed(client, total - 3)["events"] == [
        {"type": "sanction", "kind": "warning", "expires_at": None, "n": n, "seq": n + 1}
        for n in range(total - 3, total)
    ]
