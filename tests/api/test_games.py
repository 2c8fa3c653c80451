"""The game endpoints: views, actions, errors (docs/client-guide.md §7, §4)."""

import random

import pytest

from games import engine
from games.models import Event, Game
from tests.api.playing import get_view, play_deal, post_action
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db


def _snapshot(game_id: int) -> tuple:
    game = Game.objects.get(pk=game_id)
    return game.version, game.state, game.last_seq, Event.objects.filter(game=game).count()


def _actor(setup) -> tuple[int, dict]:
    """A seat that may act now and its view."""
    state = engine.from_json(Game.objects.get(pk=setup["game"]).state)
    seat = engine.to_act(state)[0]
    return seat, get_view(setup["clients"][seat], setup["game"])


def test_seated_player_gets_own_view_with_service_fields(make_table):
    setup = make_table()
    view = get_view(setup["clients"][1], setup["game"])
    assert view["seat"] == 1 and view["id"] == setup["game"] and view["table_id"] == setup["table"]
    assert view["version"] == 0 and view["deadline"].endswith("Z")
    assert view["players"] == [u.username for u in setup["users"]]
    assert len(view["hand"]) == view["counts"][1]


def test_spectator_of_public_table_gets_public_view(make_table, make_client, make_user):
    setup = make_table()
    _, token = make_user()
    view = get_view(make_client(token), setup["game"])
    assert "hand" not in view and "legal_actions" not in view


def test_stranger_of_private_table_is_403(make_table, make_client, make_user):
    setup = make_table(private=True)
    _, token = make_user()
    client = make_client(token)
    before = _snapshot(setup["game"])
    assert_error(client.get(f"/api/v1/games/{setup['game']}"), 403, "permission_denied")
    assert_error(client.get(f"/api/v1/games/{setup['game']}/events"), 403, "permission_denied")
    assert_error(client.get(f"/api/v1/games/{setup['game']}/final"), 403, "permission_denied")
    assert_error(post_action(client, setup["game"], {"type": "pass"}), 403, "permission_denied")
    assert _snapshot(setup["game"]) == before


def test_unknown_game_is_404(make_client, make_user):
    _, token = make_user()
    client = make_client(token)
    assert_error(client.get("/api/v1/games/987654"), 404, "not_found")
    assert_error(post_action(client, 987654, {"type": "pass"}), 404, "not_found")
    assert_error(client.get("/api/v1/games/987654/events"), 404, "not_found")


def test_no_token_is_401(make_table, make_client):
    setup = make_table()
    assert_error(make_client().get(f"/api/v1/games/{setup['game']}"), 401, "not_authenticated")
    assert_error(post_action(make_client(), setup["game"], {"type": "pass"}), 401, "not_authenticated")


def test_final_before_the_end_is_409_game_not_over(make_table):
    setup = make_table()
    body = assert_error(setup["clients"][0].get(f"/api/v1/games/{setup['game']}/final"), 409, "game_not_over")
    assert "hands" not in str(body)


@pytest.mark.parametrize(
    "payload",
    [
        {"type": "play", "cards": ["ZZ"]},
        {"type": "play", "cards": ["3S", 7]},
        {"type": "call", "card": "XX"},
        {"type": "dance"},
        {"cards": ["3S"]},
        {"type": "pass", "expected_version": -1},
        {"type": "pass", "expected_version": "soon"},
        {"type": "pass", "surprise": 1},
        ["pass"],
    ],
)
def test_malformed_actions_are_400_and_change_nothing(make_table, payload):
    setup = make_table()
    seat, _ = _actor(setup)
    before = _snapshot(setup["game"])
    response = setup["clients"][seat].post(f"/api/v1/games/{setup['game']}/actions", payload, format="json")
    assert_error(response, 400, "invalid_request")
    assert _snapshot(setup["game"]) == before


def test_malformed_json_body_is_400(make_table):
    setup = make_table()
    seat, _ = _actor(setup)
    response = setup["clients"][seat].post(
        f"/api/v1/games/{setup['game']}/actions", "{type: pass", content_type="application/json"
    )
    assert_error(response, 400, "invalid_request")


def test_not_your_turn_is_409_and_changes_nothing(make_table):
    setup = make_table()
    seat, view = _actor(setup)
    other = (seat + 1) % 5
    before = _snapshot(setup["game"])
    response = post_action(setup["clients"][other], setup["game"], view["legal_actions"][0])
    assert_error(response, 409, "not_your_turn")
    assert _snapshot(setup["game"]) == before


def test_wrong_phase_is_409(make_table):
    setup = make_table()
    seat, view = _actor(setup)
    assert view["phase"] != "play"
    before = _snapshot(setup["game"])
    assert_error(post_action(setup["clients"][seat], setup["game"], {"type": "pass"}), 409, "wrong_phase")
    assert _snapshot(setup["game"]) == before


def test_stale_version_is_409_with_the_current_version(make_table):
    setup = make_table()
    seat, view = _actor(setup)
    before = _snapshot(setup["game"])
    response = post_action(
        setup["clients"][seat], setup["game"], view["legal_actions"][0], version=view["version"] + 3
    )
    body = assert_error(response, 409, "stale_version")
    assert body["extra"] == {"version": view["version"]}
    assert _snapshot(setup["game"]) == before


def _drive_to_open_window(setup) -> engine.State:
    """Play (accepting the crown, staying in windows) until a window opens with nobody answered yet."""
    for _ in range(30):
        state = engine.from_json(Game.objects.get(pk=setup["game"]).state)
        if state.window is not None and not state.window.answers and len(state.window.asked) >= 3:
            return state
        seat, view = _actor(setup)
        legal = view["legal_actions"]
        action = next((a for a in legal if a["type"] in ("accept", "stay")), legal[0])
        assert post_action(setup["clients"][seat], setup["game"], action).status_code == 200
    raise AssertionError("no window opened")


def test_in_a_window_any_version_since_it_opened_is_current(make_table):
    """docs/rules.md §2.5: window answers are secret, so the others' answers change nothing a seat sees; its
    prompt's version stays current until the window closes (API 1.3.0). Outside that span: stale."""
    setup = make_table()
    state = _drive_to_open_window(setup)
    opened = Game.objects.get(pk=setup["game"]).version
    first, second, third = state.window.asked[:3]
    clients = setup["clients"]
    assert post_action(clients[first], setup["game"], {"type": "stay"}, version=opened).status_code == 200
    # A version from before the window opened is another prompt's: stale, and nothing changes.
    before = _snapshot(setup["game"])
    stay = {"type": "stay"}
    early = post_action(clients[second], setup["game"], stay, version=opened - 1)
    body = assert_error(early, 409, "stale_version")
    assert body["extra"] == {"version": opened + 1}
    # So is one the game has not reached.
    assert_error(post_action(clients[second], setup["game"], stay, version=opened + 2), 409, "stale_version")
    assert _snapshot(setup["game"]) == before
    assert post_action(clients[second], setup["game"], {"type": "stay"}, version=opened).status_code == 200
    assert post_action(clients[third], setup["game"], {"type": "stay"}, version=opened + 1).status_code == 200
    assert Game.objects.get(pk=setup["game"]).version == opened + 3


def test_outside_a_window_only_the_exact_version_is_current(make_table):
    setup = make_table()
    seat, view = _drive_to_play(setup, random.Random(5))
    before = _snapshot(setup["game"])
    response = post_action(
        setup["clients"][seat], setup["game"], view["legal_actions"][0], version=view["version"] - 1
    )
    assert_error(response, 409, "stale_version")
    assert _snapshot(setup["game"]) == before


def _drive_to_play(setup, rng) -> tuple[int, dict]:
    for _ in range(200):
        seat, view = _actor(setup)
        if view["phase"] == "play":
            return seat, view
        post_action(
            setup["clients"][seat], setup["game"], rng.choice(view["legal_actions"]), version=view["version"]
        )
    raise AssertionError("never reached play")


def test_rule_violations_are_422_and_change_nothing(make_table):
    setup = make_table()
    seat, view = _drive_to_play(setup, random.Random(3))
    hand = view["hand"]
    before = _snapshot(setup["game"])
    # Two cards of different natural ranks are never one play (docs/rules.md §1).
    naturals = [c for c in hand if c[0] not in "BS" or c[1] not in "J"]
    mixed = next(
        ([a, b] for a in naturals for b in naturals if a[0] != b[0]),
        None,
    )
    if mixed:
        response = post_action(setup["clients"][seat], setup["game"], {"type": "play", "cards": mixed})
        assert response.status_code == 422 and response.json()["code"] in {"not_a_play", "must_play_last"}
    foreign = next(code for code in ("3S", "4H", "5D", "6C", "7S", "8H", "9D", "TC") if code not in hand)
    response = post_action(setup["clients"][seat], setup["game"], {"type": "play", "cards": [foreign]})
    assert_error(response, 422, "card_not_in_hand")
    assert _snapshot(setup["game"]) == before


def test_an_action_returns_the_new_view_and_appends_events(make_table):
    setup = make_table()
    seat, view = _actor(setup)
    before = Game.objects.get(pk=setup["game"])
    response = post_action(
        setup["clients"][seat], setup["game"], view["legal_actions"][0], version=view["version"]
    )
    assert response.status_code == 200
    body = response.json()
    assert body["version"] == view["version"] + 1 and body["seat"] == seat
    after = Game.objects.get(pk=setup["game"])
    assert after.last_seq > before.last_seq
    action_rows = Event.objects.filter(game=after, action__isnull=False)
    assert [row.action for row in action_rows] == [[seat, view["legal_actions"][0]]]


def test_events_are_served_after_seq(make_table):
    setup = make_table()
    client = setup["clients"][0]
    first = client.get(f"/api/v1/games/{setup['game']}/events").json()
    assert first["last_seq"] >= 1 and first["version"] == 0
    assert [e["seq"] for e in first["events"]] == sorted(e["seq"] for e in first["events"])
    again = client.get(f"/api/v1/games/{setup['game']}/events?after={first['last_seq']}").json()
    assert again["events"] == [] and again["last_seq"] == first["last_seq"]
    assert_error(client.get(f"/api/v1/games/{setup['game']}/events?after=-2"), 400, "invalid_request")
    assert_error(client.get(f"/api/v1/games/{setup['game']}/events?after=x"), 400, "invalid_request")


def test_trustee_on_off_and_lock_after_three_entries(make_table):
    setup = make_table()
    client = setup["clients"][3]
    url = f"/api/v1/games/{setup['game']}/trustee"
    for _ in range(3):
        assert client.post(url, {"on": True}, format="json").json()["trustee"][3] is True
        assert client.post(url, {"on": False}, format="json").json()["trustee"][3] is False
    assert client.post(url, {"on": True}, format="json").status_code == 200
    before = _snapshot(setup["game"])
    assert_error(client.post(url, {"on": False}, format="json"), 409, "trustee_locked")
    assert _snapshot(setup["game"]) == before
    assert_error(client.post(url, {"on": "maybe"}, format="json"), 400, "invalid_request")


def test_a_finished_deal_is_scored_and_the_next_one_dealt(make_table):
    setup = make_table(deals=2)
    game = play_deal(setup["clients"], setup["game"], random.Random(11))
    table = setup["staff"].get(f"/api/v1/tables/{setup['table']}").json()
    final = setup["clients"][0].get(f"/api/v1/games/{game.pk}/final").json()
    assert set(final) >= {"hands", "seed", "actions", "scores", "tribute", "next_start_seat", "void"}
    assert_error(post_action(setup["clients"][0], game.pk, {"type": "pass"}), 409, "game_over")
    if game.status == "over":
        assert table["scores"] == final["scores"]
        assert table["deals_done"] == 1
    assert table["current_game"] not in (None, game.pk)
    nxt = Game.objects.get(pk=table["current_game"])
    if game.status == "over":
        assert nxt.setup["start_seat"] == final["next_start_seat"]
        assert nxt.setup["context"]["scores"] == final["scores"]


def test_overlong_idempotency_key_is_400_and_changes_nothing(make_table):
    setup = make_table()
    seat, view = _actor(setup)
    before = _snapshot(setup["game"])
    response = post_action(setup["clients"][seat], setup["game"], view["legal_actions"][0], key="k" * 256)
    assert_error(response, 400, "invalid_request")
    assert _snapshot(setup["game"]) == before
