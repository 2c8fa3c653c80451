"""The logs' fast lane (config/log_fast_lane.py): the plain reads of `GET games/{id}/events`
answered before Django give what Django gives; everything else is left to Django (CONTRACT §4
"Events", RULES §5 private events).

The requests go through the real ASGI application (config/asgi.py) with a hand-made scope. Its sync
work runs on the request's own thread, so these tests commit their data (transaction=True).
"""

import json
import logging
import threading
import time

import pytest
from django.db import connection

from accounts import services as account_services
from accounts.models import Sanction, SanctionKind
from accounts.scopes import Scope
from config import log_fast_lane
from games import engine, selectors
from games.models import Event, Game
from tests.config.asgi_client import asgi_request

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _lane_settings(settings):
    settings.AUTH_TOKEN_CACHE_SECONDS = 60  # the lane answers only tokens the cache holds
    settings.ALLOWED_HOSTS = ["testserver"]
    settings.EVENTS_POLL_INTERVAL = 0.1  # waits re-read the database this often without Redis


@pytest.fixture
def lane_answers(monkeypatch):
    """How many requests the lane answered itself."""
    answered = []
    original = log_fast_lane._send

    async def counting(**kwargs):
        answered.append(kwargs["body"])
        await original(**kwargs)

    monkeypatch.setattr(log_fast_lane, "_send", counting)
    return answered


def asgi_get(path: str, query: str = "", token: str | None = None, headers=()) -> tuple[int, dict, bytes]:
    return asgi_request("GET", path, query, token, headers=headers)


def _events_path(setup) -> str:
    return f"/api/v1/games/{setup['game']}/events"


def _both(setup, seat: int, query: str, lane_answers, settings) -> tuple:
    """Django's answer (lane off), then the lane's, for the same request."""
    settings.EVENTS_FAST_LANE = False
    django = asgi_get(_events_path(setup), query, setup["tokens"][seat])
    settings.EVENTS_FAST_LANE = True
    before = len(lane_answers)
    lane = asgi_get(_events_path(setup), query, setup["tokens"][seat])
    assert len(lane_answers) == before + 1, "the lane did not answer"
    return django, lane


_VARYING = {"date", "x-request-id"}


def test_the_lane_gives_djangos_body_and_headers(make_table, lane_answers, settings):
    setup = make_table()
    for seat in range(5):
        for query in ("", "after=0", "after=2", "after=0&wait=0"):
            (d_status, d_headers, d_body), (l_status, l_headers, l_body) = _both(
                setup, seat, query, lane_answers, settings
            )
            assert d_status == l_status == 200
            assert json.loads(l_body) == json.loads(d_body)
            assert {k: v for k, v in l_headers.items() if k not in _VARYING} == {
                k: v for k, v in d_headers.items() if k not in _VARYING
            }


def _play_default_moves(setup, count: int) -> None:
    for _ in range(count):
        game = Game.objects.get(pk=setup["game"])
        state = selectors.game_state(game=game)
        if state.phase in ("over", "void"):
            return
        seat = engine.to_act(state)[0]
        action = engine.action_to_dict(engine.trustee_action(state, seat))
        response = setup["clients"][seat].post(
            f"/api/v1/games/{game.pk}/actions", {**action, "expected_version": game.version}, format="json"
        )
        assert response.status_code == 200, response.json()


def test_the_lane_never_shows_another_seats_private_events(make_table, lane_answers, settings):
    setup = make_table()
    _play_default_moves(setup, 12)
    private = list(
        Event.objects.filter(game_id=setup["game"], data__has_key="private_to").values_list("seq", "data")
    )
    assert {seat for _, data in private for seat in data["private_to"]}, "no private event to hide"
    for seat in range(5):
        _, lane = _both(setup, seat, "after=0", lane_answers, settings)
        shown = {event["seq"] for event in json.loads(lane[2])["events"]}
        for seq, data in private:
            assert (seq in shown) == (seat in data["private_to"]), (seat, seq, data)


@pytest.mark.parametrize(
    "query",
    ["after=-1", "after=x", "after=1&after=2", "after=0&limit=5", "after=01", "wait=abc", "after=%FF"],
)
def test_any_other_query_is_left_to_django(make_table, lane_answers, query):
    setup = make_table()
    asgi_get(_events_path(setup), "", setup["tokens"][0])
    assert len(lane_answers) == 1  # the token is cached: the plain read went through the lane
    status, _, body = asgi_get(_events_path(setup), query, setup["tokens"][0])
    assert len(lane_answers) == 1
    if status != 200:
        assert status == 400 and json.loads(body)["code"] == "invalid_request"


def test_requests_it_cannot_vouch_for_are_left_to_django(make_table, make_user, lane_answers):
    setup = make_table(private=True)
    path = _events_path(setup)
    _, stranger = make_user()
    # Unknown, missing and malformed credentials: Django's 401.
    assert asgi_get(path, "", "not-a-token")[0] == 401
    assert asgi_get(path, "")[0] == 401
    assert asgi_get(path, "", headers=[(b"authorization", b"Bearer a b")])[0] == 401
    # A stranger at a private table (cached token and all): Django's 403.
    asgi_get(path, "", stranger)
    status, _, body = asgi_get(path, "", stranger)
    assert status == 403 and json.loads(body)["code"] == "permission_denied"
    # No such game: Django's 404.
    assert asgi_get("/api/v1/games/999999999/events", "", setup["tokens"][0])[0] == 404
    # A host Django refuses: Django's 400.
    assert asgi_get(path, "", setup["tokens"][0], headers=[(b"host", b"evil.example")])[0] == 400
    assert lane_answers == []
    assert asgi_get(path, "", setup["tokens"][0])[0] == 200 and len(lane_answers) == 1


def test_a_ban_or_a_token_without_the_read_scope_is_refused_by_django(make_table, lane_answers):
    setup = make_table()
    path = _events_path(setup)
    user = setup["users"][1]
    _, narrow = account_services.personal_token_create(
        user=user, name="t", scopes=[Scope.PLAY], expires_in_days=1, granted=frozenset(Scope.values)
    )
    assert asgi_get(path, "", narrow)[0] == 403
    status, _, body = asgi_get(path, "", narrow)
    assert status == 403 and json.loads(body)["code"] == "missing_scope"
    assert lane_answers == []
    token = setup["tokens"][2]
    assert asgi_get(path, "", token)[0] == 200 and len(lane_answers) == 1
    Sanction.objects.create(user=setup["users"][2], kind=SanctionKind.BAN, reason="test")
    status, _, body = asgi_get(path, "", token)
    assert status == 403 and json.loads(body)["code"] == "banned"
    assert len(lane_answers) == 1


def test_the_lane_waits_and_is_woken_by_a_commit(make_table, lane_answers):
    setup = make_table()
    path = _events_path(setup)
    token = setup["tokens"][0]
    last_seq = json.loads(asgi_get(path, "", token)[2])["last_seq"]
    # Nothing new: it waits the whole time and answers the empty log.
    started = time.monotonic()
    status, _, body = asgi_get(path, f"after={last_seq}&wait=0.6", token)
    assert status == 200 and time.monotonic() - started >= 0.55
    assert json.loads(body)["events"] == [] and json.loads(body)["last_seq"] == last_seq
    # A move committed meanwhile wakes it early with the move.
    game = Game.objects.get(pk=setup["game"])
    state = selectors.game_state(game=game)
    seat = engine.to_act(state)[0]
    payload = {**engine.action_to_dict(engine.trustee_action(state, seat)), "expected_version": game.version}

    def move_soon():
        time.sleep(0.3)
        try:
            setup["clients"][seat].post(f"/api/v1/games/{game.pk}/actions", payload, format="json")
        finally:
            connection.close()  # this thread's own

    mover = threading.Thread(target=move_soon)
    mover.start()
    started = time.monotonic()
    status, _, body = asgi_get(path, f"after={last_seq}&wait=5", token)
    mover.join()
    assert status == 200 and time.monotonic() - started < 4
    answer = json.loads(body)
    assert answer["last_seq"] > last_seq and answer["events"]
    assert len(lane_answers) == 3


def test_the_lane_writes_the_access_line_and_the_request_id(make_table, lane_answers, caplog):
    setup = make_table()
    path = _events_path(setup)
    asgi_get(path, "", setup["tokens"][0])
    with caplog.at_level(logging.INFO, logger="baohuang.request"):
        _, headers, _ = asgi_get(path, "", setup["tokens"][0], headers=[(b"x-request-id", b"abc-123")])
    assert headers["x-request-id"] == "abc-123"
    lines = [r for r in caplog.records if r.name == "baohuang.request"]
    assert lines and lines[-1].route == log_fast_lane.ROUTES[0] and lines[-1].status == 200
    assert len(lane_answers) == 2


# --- The feed, `GET me/events` (CONTRACT §5 "Your feed") ---------------------------------------------


def test_the_feed_through_the_lane_is_djangos_answer(make_table, lane_answers, settings):
    setup = make_table()
    for seat in range(5):
        for query in ("", "after=0", "after=1", "after=0&wait=0"):
            settings.EVENTS_FAST_LANE = False
            django = asgi_get("/api/v1/me/events", query, setup["tokens"][seat])
            settings.EVENTS_FAST_LANE = True
            before = len(lane_answers)
            lane = asgi_get("/api/v1/me/events", query, setup["tokens"][seat])
            assert len(lane_answers) == before + 1
            assert django[0] == lane[0] == 200
            assert json.loads(lane[2]) == json.loads(django[2])
            if query in ("", "after=0"):
                assert json.loads(lane[2])["events"]  # deal_started at least: a feed is his own
            assert {k: v for k, v in lane[1].items() if k not in _VARYING} == {
                k: v for k, v in django[1].items() if k not in _VARYING
            }


def test_the_feed_as_a_stream_or_with_a_bad_query_is_djangos(make_table, lane_answers, settings):
    settings.EVENTS_SSE_MAX_SECONDS = 0.2
    setup = make_table()
    token = setup["tokens"][0]
    assert asgi_get("/api/v1/me/events", "after=x", token)[0] == 400
    status, headers, body = asgi_get(
        "/api/v1/me/events", "", token, headers=[(b"accept", b"text/event-stream")]
    )
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    assert b"event: deal_started" in body
    assert lane_answers == []


def test_a_game_log_stream_is_djangos(make_table, lane_answers, settings):
    settings.EVENTS_SSE_MAX_SECONDS = 0.2
    setup = make_table()
    status, headers, body = asgi_get(
        f"/api/v1/games/{setup['game']}/events",
        "",
        setup["tokens"][0],
        headers=[(b"accept", b"text/event-stream")],
    )
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    assert b"event: candidate" in body
    assert lane_answers == []


def test_the_feed_waits_in_the_lane_and_wakes_on_a_new_entry(make_table, lane_answers):
    setup = make_table()
    game = Game.objects.get(pk=setup["game"])
    state = selectors.game_state(game=game)
    seat = engine.to_act(state)[0]
    # Someone not prompted now waits on his feed; a later prompt for him wakes it with `your_turn`.
    follower = next(s for s in range(5) if s != seat)
    token = setup["tokens"][follower]
    last_seq = json.loads(asgi_get("/api/v1/me/events", "", token)[2])["last_seq"]

    def play_until_his_turn():
        try:
            for _ in range(40):
                time.sleep(0.05)
                game = Game.objects.get(pk=setup["game"])
                state = selectors.game_state(game=game)
                if state.phase in ("over", "void"):
                    return
                acting = engine.to_act(state)
                if follower in acting:
                    return
                action = engine.action_to_dict(engine.trustee_action(state, acting[0]))
                setup["clients"][acting[0]].post(
                    f"/api/v1/games/{game.pk}/actions",
                    {**action, "expected_version": game.version},
                    format="json",
                )
        finally:
            connection.close()

    mover = threading.Thread(target=play_until_his_turn)
    mover.start()
    status, _, body = asgi_get("/api/v1/me/events", f"after={last_seq}&wait=8", token)
    mover.join()
    answer = json.loads(body)
    assert status == 200 and answer["last_seq"] > last_seq
    assert [e["type"] for e in answer["events"]] == ["your_turn"] * len(answer["events"])
    assert len(lane_answers) == 2


def test_a_token_that_leaves_the_cache_during_the_wait_is_answered_at_once(make_table, lane_answers):
    # The token cache keeps an entry a minute: a poll waiting across that minute must not wait twice.
    from django.core.cache import cache

    setup = make_table()
    path, token = _events_path(setup), setup["tokens"][0]
    last_seq = json.loads(asgi_get(path, "", token)[2])["last_seq"]
    answered_by_lane = len(lane_answers)

    def forget_soon():
        time.sleep(0.2)
        cache.clear()

    forgetting = threading.Thread(target=forget_soon)
    forgetting.start()
    started = time.monotonic()
    status, _, body = asgi_get(path, f"after={last_seq}&wait=1", token)
    forgetting.join()
    assert status == 200 and json.loads(body) == {"events": [], "last_seq": last_seq, "version": 0}
    assert time.monotonic() - started < 1.8  # one wait, then Django's immediate answer
    assert len(lane_answers) == answered_by_lane
