"""Complete deals of every preset through HTTP, every answer validated against the served schema with
undeclared keys forbidden (tests/contract/strict_schema.py): a key the schema does not declare, or a
declared one with another type, fails here."""

import random

import pytest

from games import engine
from tests.api.playing import play_deal
from tests.contract.checked_client import CheckedClient
from tests.contract.strict_schema import StrictSchema


@pytest.fixture
def strict_schema(client) -> StrictSchema:
    return StrictSchema(client.get("/api/schema/?format=json").json())


def _events(client, path: str) -> list[dict]:
    events, after = [], 0
    while True:
        page = client.get(path, {"after": after}).json()
        events += page["events"]
        if page["last_seq"] == after:
            return events
        after = page["last_seq"]


@pytest.mark.parametrize("preset", engine.PRESETS)
def test_every_answer_of_complete_deals_conforms_to_the_schema(
    preset, strict_schema, make_table, make_user, make_client
):
    problems: list[str] = []
    seen: set = set()
    setup = make_table(preset=preset, deals=2)
    clients = [CheckedClient(c, strict_schema, problems, seen) for c in setup["clients"]]
    staff = CheckedClient(setup["staff"], strict_schema, problems, seen)
    _, spectator_token = make_user()
    spectator = CheckedClient(make_client(spectator_token), strict_schema, problems, seen)
    table_id, game_id = setup["table"], setup["game"]
    rng = random.Random(f"conformance-{preset}")
    event_types: set[str] = set()
    for _ in range(4):  # void deals are dealt again: follow the table to a scored deal
        game = play_deal(clients, game_id, rng)
        for client in clients:
            event_types |= {event["type"] for event in _events(client, f"/api/v1/games/{game_id}/events")}
            client.get(f"/api/v1/games/{game_id}")
            assert client.get(f"/api/v1/games/{game_id}/final").status_code == 200
        spectator.get(f"/api/v1/games/{game_id}")
        _events(spectator, f"/api/v1/games/{game_id}/events")
        detail = staff.get(f"/api/v1/tables/{table_id}").json()
        if game.status == "over":
            break
        game_id = detail["current_game"]
    table_events = _events(clients[0], f"/api/v1/tables/{table_id}/events")
    assert {"seat_taken", "deal_started", "deal_over"} <= {event["type"] for event in table_events}
    feed = _events(clients[0], "/api/v1/me/events")
    assert "deal_started" in {event["type"] for event in feed}
    for client in (clients[0], staff):
        client.get("/api/v1/me")
        client.get("/api/v1/me/active")
        client.get("/api/v1/me/restrictions")
        client.get("/api/v1/tables")
        client.get(f"/api/v1/users/{setup['users'][0].pk}/history")
        client.get(f"/api/v1/users/{setup['users'][0].pk}/ratings")
        client.get("/api/v1/ratings/leaderboard")
        client.get("/api/v1/matchmaking/stats")
    assert {"play", "pass", "deal_over"} <= event_types
    assert ("get", "/api/v1/games/{game_id}/final", 200) in seen
    assert not problems, "\n".join(problems)
