"""Structured logs: request ids (the caller's when safe), the ids of what a request is about, JSON
lines; and no hidden card, seed or token in any line, even at DEBUG."""

import io
import json
import logging
import random
import re

import pytest

from games import engine
from games.models import Game
from infra import logs, request_context
from tests.api.playing import play_deal

pytestmark = pytest.mark.django_db


@pytest.fixture
def json_lines():
    """Every log record of the process, at DEBUG, as the production handler writes it."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.JsonLineFormatter())
    handler.addFilter(logs.ContextFilter())
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield lambda: [line for line in stream.getvalue().splitlines() if line]
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


def access_lines(lines: list[str]) -> list[dict]:
    return [record for record in map(json.loads, lines) if record.get("logger") == "baohuang.request"]


def test_a_safe_request_id_is_kept_and_returned(client, json_lines):
    response = client.get("/healthz", HTTP_X_REQUEST_ID="lb-7f3a.42:1")
    assert response["X-Request-ID"] == "lb-7f3a.42:1"
    [line] = access_lines(json_lines())
    assert line["request_id"] == "lb-7f3a.42:1"
    assert line["status"] == 200 and line["route"] == "healthz"


@pytest.mark.parametrize("given", ["has space", "x" * 129, "line\nbreak", '{"json":1}', "ünïcode", ""])
def test_an_unsafe_request_id_is_replaced_by_a_fresh_one(client, given):
    response = client.get("/healthz", HTTP_X_REQUEST_ID=given)
    assert re.fullmatch(r"[0-9a-f]{32}", response["X-Request-ID"])


def test_every_request_gets_an_id_of_its_own(client):
    first = client.get("/healthz")["X-Request-ID"]
    second = client.get("/healthz")["X-Request-ID"]
    assert first != second


def test_lines_name_the_game_and_the_authenticated_user(make_table, json_lines):
    setup = make_table()
    client = setup["clients"][2]
    response = client.get(f"/api/v1/games/{setup['game']}", HTTP_X_REQUEST_ID="req-game-1")
    assert response.status_code == 200
    [line] = [line for line in access_lines(json_lines()) if line.get("request_id") == "req-game-1"]
    assert line["game_id"] == setup["game"]
    assert line["user_id"] == setup["users"][2].pk
    assert line["route"] == "api/v1/games/<id:game_id>"
    table = setup["staff"].get(f"/api/v1/tables/{setup['table']}", HTTP_X_REQUEST_ID="req-table-1")
    assert table.status_code == 200
    [line] = [line for line in access_lines(json_lines()) if line.get("request_id") == "req-table-1"]
    assert line["table_id"] == setup["table"]


def test_lines_outside_requests_and_tasks_carry_no_ids():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.JsonLineFormatter())
    handler.addFilter(logs.ContextFilter())
    logger = logging.getLogger("tests.ops.plain")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("hello %s", "world")
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    record = json.loads(stream.getvalue())
    assert record["message"] == "hello world" and record["level"] == "WARNING"
    assert not {"request_id", "task_id", "game_id", "user_id"} & set(record)


def test_a_task_binds_its_id_and_game_for_its_lines():
    token = request_context.bind_task(task_id="t-1", task_name="games.x", kwargs={"game_id": 5, "version": 3})
    try:
        fields = request_context.current_fields()
    finally:
        request_context.unbind(token)
    assert fields["task_id"] == "t-1" and fields["game_id"] == 5 and fields["task_name"] == "games.x"
    assert request_context.current_fields()["task_id"] is None


def test_the_text_format_shows_the_request_id():
    formatter = logs.TextFormatter(logs.TEXT_FORMAT)
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "hi", None, None)
    logs.ContextFilter().filter(record)
    assert "[-] hi" in formatter.format(record)


def _renderings(cards) -> list[str]:
    cards = list(cards)
    return [
        json.dumps(cards),
        repr(cards),
        json.dumps(sorted(cards)),
        repr(sorted(cards)),
        repr(tuple(cards)),
    ]


def test_no_hand_seed_or_token_reaches_a_log_line_of_a_played_deal(make_table, json_lines, settings):
    # settings.DEBUG would make Django log every SQL statement with its parameters (the state).
    settings.DEBUG = True
    setup = make_table(deals=1)
    game = Game.objects.get(pk=setup["game"])
    state = engine.from_json(game.state)
    secrets = [str(state.seed), *setup["tokens"]]
    for seat in range(5):
        secrets += _renderings(state.dealt[seat]) + _renderings(state.hands[seat])

    # The scanner catches a leak when there is one.
    logging.getLogger("tests.ops.canary").debug("hand %s", list(state.hands[0]))
    assert any(secret in line for line in json_lines() for secret in secrets)
    canary_count = len(json_lines())

    snapshots = []

    def observe(seat, kind, body):
        # Hands as they shrink: the current hands are secret too, at every point of the deal.
        if kind == "action" and len(snapshots) < 40:
            current = engine.from_json(Game.objects.get(pk=setup["game"]).state)
            snapshots.append([list(current.hands[s]) for s in range(5) if len(current.hands[s]) >= 3])

    play_deal(setup["clients"], setup["game"], random.Random(11), observe=observe)
    for hands in snapshots:
        for hand in hands:
            secrets += _renderings(hand)

    lines = json_lines()[canary_count:]
    assert len(access_lines(lines)) > 100, "the deal's requests were logged"
    for line in lines:
        for secret in secrets:
            assert secret not in line, f"log line leaks {secret[:40]}: {line[:300]}"


def test_djangos_own_warnings_carry_the_request_id(client, json_lines):
    assert client.get("/api/v1/no-such-thing", HTTP_X_REQUEST_ID="rid-404").status_code == 404
    warnings = [r for r in map(json.loads, json_lines()) if r["logger"] == "django.request"]
    assert warnings and all(r["request_id"] == "rid-404" for r in warnings), warnings
    # Once the response is closed the request is forgotten.
    assert request_context.current_fields()["request_id"] is None
