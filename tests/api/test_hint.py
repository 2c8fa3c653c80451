"""`GET games/{id}/hint` (docs/client-guide.md §3 "Hint"): the action the `normal` bot chooses for the
caller's seat from the caller's own view; never from hidden information."""

import pytest

from games import engine
from matchmaking.moderation import services as moderation_services
from tests.api.playing import get_view, post_action
from tests.api.test_no_leaks import _swap_plain_cards
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db

QUIET = ("accept", "stay", "pass")


def _hint(client, game_id: int):
    return client.get(f"/api/v1/games/{game_id}/hint")


def _to_play(setup, viewer: int) -> dict:
    """Answer every prompt quietly (accept, stay) until `viewer` is asked in the play phase; the same
    answers in two deals whose public course is the same."""
    game_id = setup["game"]
    for _ in range(40):
        public = get_view(setup["clients"][viewer], game_id)
        if public["phase"] == "play" and viewer in public["to_act"]:
            return public
        asked = public["to_act"] if public["to_act"] is not None else public["window"]["asked"]
        for seat in sorted(asked):
            view = get_view(setup["clients"][seat], game_id)
            if not view["legal_actions"]:
                continue
            action = next((a for a in view["legal_actions"] if a["type"] in QUIET), view["legal_actions"][0])
            assert post_action(setup["clients"][seat], game_id, action).status_code == 200
            break
    raise AssertionError("the viewer was never asked to play")


def test_the_hint_is_the_normal_bots_choice_from_the_callers_view(make_table):
    setup = make_table(setups=[{"seed": 31}])
    game_id = setup["game"]
    view = get_view(setup["clients"][0], game_id)
    candidate = view["candidate"]
    # Before play: the candidate's answer.
    client = setup["clients"][candidate]
    answer = _hint(client, game_id)
    assert answer.status_code == 200, answer.content
    own = get_view(client, game_id)
    assert answer.json() == engine.bot_action(own, level="normal").to_dict()
    assert answer.json() in own["legal_actions"]
    # In play: a lead with many choices; the hint can be posted back as it is.
    view = _to_play(setup, candidate)
    assert len(view["legal_actions"]) > 1
    hint = _hint(client, game_id).json()
    assert hint == engine.bot_action(view, level="normal").to_dict()
    assert hint != view["legal_actions"][0] or len({a["type"] for a in view["legal_actions"]}) == 1
    assert post_action(client, game_id, hint, version=view["version"]).status_code == 200


def test_deals_that_differ_only_in_hidden_cards_get_the_same_hint(make_table):
    rules = engine.preset("weihai")
    state = engine.new_deal(rules, seed=2024)
    hands = [list(h) for h in state.hands]
    viewer = state.candidate
    others = [s for s in range(5) if s != viewer]
    swapped = _swap_plain_cards(hands, others[0], others[1])
    base = {"candidate": state.candidate, "aside": list(state.aside)}
    first = make_table(setups=[{"hands": hands, **base}])
    second = make_table(setups=[{"hands": swapped, **base}])
    ignored = {"id", "table_id", "version", "deadline", "players"}
    hints = []
    for setup in (first, second):
        view = _to_play(setup, viewer)
        answer = _hint(setup["clients"][viewer], setup["game"])
        assert answer.status_code == 200, answer.content
        hints.append(({k: v for k, v in view.items() if k not in ignored}, answer.json()))
    # The same view (the premise), other cards elsewhere, the same hint.
    assert hints[0][0] == hints[1][0]
    assert hands[others[0]] != swapped[others[0]]
    assert hints[0][1] == hints[1][1]


def test_a_spectator_a_stranger_and_a_seat_not_asked_are_refused(make_table, make_user, make_client):
    setup = make_table(setups=[{"seed": 31}])
    game_id = setup["game"]
    candidate = get_view(setup["clients"][0], game_id)["candidate"]
    _, token = make_user()
    assert_error(_hint(make_client(token), game_id), 403, "permission_denied")
    assert_error(_hint(make_client(), game_id), 401, "not_authenticated")
    waiting = (candidate + 1) % 5
    assert_error(_hint(setup["clients"][waiting], game_id), 409, "not_your_turn")
    assert_error(_hint(setup["clients"][0], 999_999), 404, "not_found")
    private = make_table(setups=[{"seed": 31}], private=True)
    assert_error(_hint(make_client(token), private["game"]), 403, "permission_denied")


def test_a_finished_deal_gets_no_hint(make_table):
    setup = make_table(setups=[{"seed": 31}])
    moderation_services.game_abort(
        game_id=setup["game"], reason="test", moderator=setup["users"][0], source="test"
    )
    assert get_view(setup["clients"][0], setup["game"])["status"] == "aborted"
    assert_error(_hint(setup["clients"][0], setup["game"]), 409, "game_over")


def test_hints_past_the_rate_are_429(make_table, settings):
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "hints": "2/min"},
    }
    setup = make_table(setups=[{"seed": 31}])
    candidate = get_view(setup["clients"][0], setup["game"])["candidate"]
    client = setup["clients"][candidate]
    assert [_hint(client, setup["game"]).status_code for _ in range(2)] == [200, 200]
    body = assert_error(_hint(client, setup["game"]), 429, "throttled")
    assert body["extra"]["retry_after"] > 0
