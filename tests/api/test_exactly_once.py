"""Concurrent requests on real PostgreSQL connections: a turn is taken exactly once.

Each thread has its own database connection (Django opens one per thread), so the row lock of
games/lock_objects.py is what serializes them.
"""

import random
import threading

import pytest
from django.db import connection

from games import engine
from games.models import Event, Game, IdempotencyKey
from tests.api.playing import get_view, post_action

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 6


def _in_threads(count: int, call) -> list:
    barrier = threading.Barrier(count)
    results: list = [None] * count

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = call(index)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def _to_play_phase(setup) -> tuple[int, dict]:
    rng = random.Random(5)
    for _ in range(300):
        state = engine.from_json(Game.objects.get(pk=setup["game"]).state)
        seat = engine.to_act(state)[0]
        view = get_view(setup["clients"][seat], setup["game"])
        if view["phase"] == "play" and any(a["type"] == "play" for a in view["legal_actions"]):
            return seat, view
        response = post_action(
            setup["clients"][seat], setup["game"], rng.choice(view["legal_actions"]), version=view["version"]
        )
        assert response.status_code == 200
    raise AssertionError("never reached a play")


def _expected_events(game_id: int, seat: int, action: dict) -> int:
    state = engine.from_json(Game.objects.get(pk=game_id).state)
    _, events = engine.apply_action(state, seat, engine.action_from_dict(action))
    return max(1, len(events))


def test_concurrent_identical_plays_apply_exactly_once(make_table, make_client):
    setup = make_table()
    seat, view = _to_play_phase(setup)
    action = next(a for a in view["legal_actions"] if a["type"] == "play")
    events_before = Event.objects.filter(game_id=setup["game"]).count()
    expected_new = _expected_events(setup["game"], seat, action)
    token = setup["tokens"][seat]

    def play(_):
        response = post_action(make_client(token), setup["game"], action, version=view["version"])
        return response.status_code, response.json()

    results = _in_threads(THREADS, play)
    statuses = sorted(status for status, _ in results)
    assert statuses == [200] + [409] * (THREADS - 1), results
    assert all(body["code"] == "stale_version" for status, body in results if status == 409)
    game = Game.objects.get(pk=setup["game"])
    assert game.version == view["version"] + 1
    assert Event.objects.filter(game=game).count() == events_before + expected_new
    assert Event.objects.filter(game=game, action__isnull=False).last().action == [seat, action]


def test_concurrent_retries_with_one_idempotency_key_apply_once_and_all_get_the_response(
    make_table, make_client
):
    setup = make_table()
    seat, view = _to_play_phase(setup)
    action = next(a for a in view["legal_actions"] if a["type"] == "play")
    token = setup["tokens"][seat]

    def play(_):
        response = post_action(make_client(token), setup["game"], action, version=view["version"], key="k-1")
        return response.status_code, response.json()

    results = _in_threads(THREADS, play)
    assert [status for status, _ in results] == [200] * THREADS, results
    assert all(body == results[0][1] for _, body in results)
    assert Game.objects.get(pk=setup["game"]).version == view["version"] + 1
    assert IdempotencyKey.objects.count() == 1


def test_idempotency_key_retry_replays_the_stored_response_and_applies_nothing(make_table):
    setup = make_table()
    seat, view = _to_play_phase(setup)
    client = setup["clients"][seat]
    action = next(a for a in view["legal_actions"] if a["type"] == "play")
    first = post_action(client, setup["game"], action, version=view["version"], key="retry-1")
    assert first.status_code == 200
    game = Game.objects.get(pk=setup["game"])
    events = Event.objects.filter(game=game).count()
    again = post_action(client, setup["game"], action, version=view["version"], key="retry-1")
    assert again.status_code == 200 and again.json() == first.json()
    # A client tells a replay from a fresh answer by its marker (docs/client-guide.md §6).
    assert "Idempotent-Replayed" not in first.headers
    assert again.headers["Idempotent-Replayed"] == "true"
    after = Game.objects.get(pk=setup["game"])
    assert (after.version, after.state) == (game.version, game.state)
    assert Event.objects.filter(game=game).count() == events


def test_same_idempotency_key_with_another_body_is_409_and_applies_nothing(make_table):
    setup = make_table()
    seat, view = _to_play_phase(setup)
    client = setup["clients"][seat]
    plays = [a for a in view["legal_actions"] if a["type"] == "play"]
    assert post_action(client, setup["game"], plays[0], version=view["version"], key="k").status_code == 200
    game = Game.objects.get(pk=setup["game"])
    events = Event.objects.filter(game=game).count()
    other = {"type": "pass"}
    response = post_action(client, setup["game"], other, version=view["version"] + 1, key="k")
    assert response.status_code == 409 and response.json()["code"] == "idempotency_key_reused"
    after = Game.objects.get(pk=setup["game"])
    assert (after.version, after.state) == (game.version, game.state)
    assert Event.objects.filter(game=game).count() == events


def test_a_refused_request_stores_no_key_and_its_retry_is_performed(make_table):
    """Only successful answers are stored: a key first sent with a refused request (here a stale
    version) is free, and its next use is performed, not replayed nor called reused."""
    setup = make_table()
    seat, view = _to_play_phase(setup)
    client = setup["clients"][seat]
    action = next(a for a in view["legal_actions"] if a["type"] == "play")
    refused = post_action(client, setup["game"], action, version=view["version"] + 7, key="after-409")
    assert refused.status_code == 409 and refused.json()["code"] == "stale_version"
    assert not IdempotencyKey.objects.exists()
    performed = post_action(client, setup["game"], action, version=view["version"], key="after-409")
    assert performed.status_code == 200 and "Idempotent-Replayed" not in performed.headers
    assert Game.objects.get(pk=setup["game"]).version == view["version"] + 1


def test_the_sweep_forgets_keys_past_their_retention(make_table, settings):
    """A key is kept IDEMPOTENCY_KEY_RETENTION_HOURS and then removed by the beat's sweep; a key
    within it stays."""
    from datetime import timedelta

    from django.utils import timezone

    from games.tasks import idempotency_keys_sweep

    setup = make_table()
    seat, view = _to_play_phase(setup)
    action = next(a for a in view["legal_actions"] if a["type"] == "play")
    assert post_action(setup["clients"][seat], setup["game"], action, key="old").status_code == 200
    settings.IDEMPOTENCY_KEY_RETENTION_HOURS = 24
    IdempotencyKey.objects.filter(key="old").update(created_at=timezone.now() - timedelta(hours=25))
    IdempotencyKey.objects.create(
        user=setup["users"][seat], key="recent", request_hash="0" * 64, status_code=200, body={}
    )
    assert idempotency_keys_sweep() == 1
    assert list(IdempotencyKey.objects.values_list("key", flat=True)) == ["recent"]


def test_idempotency_keys_are_per_user(make_table):
    """Another player's request with the same key is his own: applied, neither refused as a reused
    key nor answered with the first player's stored response."""
    setup = make_table()
    seat, view = _to_play_phase(setup)
    action = next(a for a in view["legal_actions"] if a["type"] == "play")
    first = post_action(setup["clients"][seat], setup["game"], action, version=view["version"], key="shared")
    assert first.status_code == 200, first.json()
    game = Game.objects.get(pk=setup["game"])
    other_seat = engine.to_act(engine.from_json(game.state))[0]
    assert other_seat != seat
    response = post_action(
        setup["clients"][other_seat], setup["game"], {"type": "pass"}, version=game.version, key="shared"
    )
    assert response.status_code == 200, response.json()
    assert response.json() != first.json()
    assert Game.objects.get(pk=setup["game"]).version > game.version
    passes = Event.objects.filter(game=game, type="pass", seq__gt=game.last_seq)
    assert [event.data["seat"] for event in passes] == [other_seat]
