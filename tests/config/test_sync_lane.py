"""The sync lane (config/sync_lane.py): an API request to a synchronous view is handled in one
thread hop by Django's synchronous handler, with the same answers, headers, errors and access line
as Django's ASGI path; async views (long-polls, streams) and pages outside /api/ are Django's.

The requests go through the real ASGI application (config/asgi.py) with a hand-made scope; its
sync work runs on the request's own thread, so these tests commit their data (transaction=True).
"""

import gc
import json
import logging
import weakref

import pytest
from asgiref import sync as asgiref_sync
from asgiref.sync import async_to_sync, sync_to_async
from django.test import AsyncClient

from config import sync_lane
from games.models import Game
from tests.api.playing import choose, get_view, prompted_seats
from tests.config.asgi_client import asgi_request

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _lane_settings(settings):
    settings.ALLOWED_HOSTS = ["testserver"]
    sync_lane._view_is_sync.cache_clear()


@pytest.fixture
def lane_calls(monkeypatch):
    """Requests the lane served, and the thread hops (sync_to_async calls) made meanwhile."""
    served, hops = [], []
    original_serve, original_call = sync_lane.serve, asgiref_sync.SyncToAsync.__call__

    async def serving(*args, **kwargs):
        served.append(args[1]["path"])
        return await original_serve(*args, **kwargs)

    async def hopping(self, *args, **kwargs):
        hops.append(getattr(self.func, "__name__", repr(self.func)))
        return await original_call(self, *args, **kwargs)

    monkeypatch.setattr(sync_lane, "serve", serving)
    monkeypatch.setattr(asgiref_sync.SyncToAsync, "__call__", hopping)
    return served, hops


def asgi_call(method: str, path: str, token=None, body: bytes = b"") -> tuple[int, dict, bytes]:
    path_only, _, query = path.partition("?")
    return asgi_request(method, path_only, query, token, body)


def test_a_move_and_a_view_go_through_the_lane_in_one_hop_each(make_table, lane_calls, caplog):
    served, hops = lane_calls
    setup = make_table()
    game_id = setup["game"]
    seat = prompted_seats(get_view(setup["clients"][0], game_id))[0]
    token = setup["tokens"][seat]
    with caplog.at_level(logging.INFO, logger="baohuang.request"):
        status, headers, content = asgi_call("GET", f"/api/v1/games/{game_id}", token)
    assert status == 200 and served == [f"/api/v1/games/{game_id}"] and hops == ["_respond"]
    view = json.loads(content)
    assert view == get_view(setup["clients"][seat], game_id)  # as the test client (Django's WSGI path)
    # Django's middleware did its work: security headers, the request id, the length, no cookie.
    assert headers["x-content-type-options"] == "nosniff" and headers["x-frame-options"] == "DENY"
    assert headers["x-request-id"] and headers["content-length"] == str(len(content))
    assert "set-cookie" not in headers
    assert any(getattr(r, "route", None) == "api/v1/games/<int:game_id>" for r in caplog.records)

    action = choose(__import__("random").Random(1), view["legal_actions"])
    payload = {"type": action["type"], "expected_version": view["version"]}
    if action.get("cards"):
        payload["cards"] = action["cards"]
    if action.get("card") is not None:
        payload["card"] = action["card"]
    hops.clear()
    status, _, content = asgi_call(
        "POST", f"/api/v1/games/{game_id}/actions", token, json.dumps(payload).encode()
    )
    assert status == 200, content
    assert hops == ["_respond"]
    assert json.loads(content)["version"] == Game.objects.get(pk=game_id).version > view["version"]


def test_errors_keep_the_one_error_shape(make_table, lane_calls):
    setup = make_table()
    game_id, token = setup["game"], setup["tokens"][0]
    status, headers, content = asgi_call("POST", f"/api/v1/games/{game_id}/actions", token, b'{"type": ')
    assert status == 400 and json.loads(content)["code"] == "invalid_request"
    huge = b'{"type": "pass", "note": "' + b"x" * 3_000_000 + b'"}'
    status, _, content = asgi_call("POST", f"/api/v1/games/{game_id}/actions", token, huge)
    assert status == 400 and json.loads(content)["extra"] == {"max_bytes": 65536}, content[:200]
    status, _, content = asgi_call("GET", f"/api/v1/games/{game_id}")
    assert status == 401 and json.loads(content)["code"] == "not_authenticated"
    status, _, content = asgi_call("GET", "/api/v1/games/999999999", token)
    assert status == 404 and json.loads(content)["code"] == "not_found"
    # No such route: not the lane's (Django's 404 page, in the one error shape under /api/).
    status, _, content = asgi_call("GET", "/api/v1/no-such-thing", token)
    assert status == 404 and json.loads(content)["code"] == "not_found"
    assert "/api/v1/no-such-thing" not in lane_calls[0]


def test_async_views_and_pages_are_djangos(make_table):
    setup = make_table()
    game_id = setup["game"]
    assert sync_lane._view_is_sync(f"/api/v1/games/{game_id}")
    assert sync_lane._view_is_sync(f"/api/v1/games/{game_id}/actions")
    for path in (
        f"/api/v1/games/{game_id}/events",
        "/api/v1/me/events",
        f"/api/v1/tables/{setup['table']}/events",
    ):
        assert not sync_lane._view_is_sync(path), path
    assert not sync_lane.wants({"type": "http", "path": "/admin/", "root_path": ""})


def test_the_lane_can_be_turned_off(make_table, lane_calls, settings):
    settings.SYNC_LANE = False
    setup = make_table()
    status, _, _ = asgi_call("GET", f"/api/v1/games/{setup['game']}", setup["tokens"][0])
    assert status == 200 and lane_calls[0] == []


def test_django_asgi_client_and_lane_agree(make_table):
    setup = make_table()
    path, token = f"/api/v1/games/{setup['game']}", setup["tokens"][1]
    django = async_to_sync(AsyncClient().get)(path, headers={"Authorization": f"Bearer {token}"})
    status, _, content = asgi_call("GET", path, token)
    assert status == django.status_code == 200 and json.loads(content) == django.json()


def _served_objects(monkeypatch, call) -> tuple[list[str], list[str]]:
    """Make one request through the lane with the cyclic collector off, and name the request's
    objects (Django's request, DRF's request, the view, the response) still alive afterwards, and
    those of them the collector then finds unreachable (kept alive only by cycles)."""
    captured = []
    original = sync_lane._respond

    def responding(*args):
        request, response = original(*args)
        context = response.renderer_context
        captured.extend(
            (name, weakref.ref(obj))
            for name, obj in (
                ("request", request),
                ("drf request", context["request"]),
                ("view", context["view"]),
                ("response", response),
            )
        )
        return request, response

    monkeypatch.setattr(sync_lane, "_respond_async", sync_to_async(responding))
    gc.collect()
    gc.disable()
    try:
        status, _, _ = call()
        assert status == 200 and len(captured) == 4
        alive = {name: id(ref()) for name, ref in captured if ref() is not None}
        # What a collection finds unreachable is kept in gc.garbage (its weak references cleared).
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        unreachable = {id(obj) for obj in gc.garbage}
        return list(alive), [name for name, address in alive.items() if address in unreachable]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def test_a_served_request_leaves_no_cycles_for_the_collector(make_table, monkeypatch):
    # Freed by reference counting once the response is sent: the cyclic collector's pauses were
    # the load test's p99 (config/sync_lane.py `_unlink`, docs/scaling.md).
    setup = make_table()
    game_id, token = setup["game"], setup["tokens"][0]
    view = lambda: asgi_call("GET", f"/api/v1/games/{game_id}", token)  # noqa: E731
    _, only_in_cycles = _served_objects(monkeypatch, view)
    assert only_in_cycles == []
    # The control: without the unlinking, Django's and DRF's cycles keep all of them alive.
    monkeypatch.setattr(sync_lane, "_unlink", lambda request, response: None)
    alive, _ = _served_objects(monkeypatch, view)
    assert alive == ["request", "drf request", "view", "response"]
