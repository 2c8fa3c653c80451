"""Driving deals through the HTTP API with random legal actions (used by several API tests)."""

import random

from games import engine
from games.models import Game
from tests.conftest import deal_end_steps


def get_view(client, game_id: int) -> dict:
    response = client.get(f"/api/v1/games/{game_id}")
    assert response.status_code == 200, response.content[:300]
    return response.json()


def post_action(client, game_id: int, action: dict, *, version: int | None = None, key: str | None = None):
    payload = {"type": action["type"]}
    if action.get("cards"):
        payload["cards"] = action["cards"]
    if action.get("card") is not None:
        payload["card"] = action["card"]
    if version is not None:
        payload["expected_version"] = version
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return client.post(f"/api/v1/games/{game_id}/actions", payload, format="json", **headers)


def choose(rng: random.Random, legal: list[dict]) -> dict:
    # Plays end a deal sooner than passes; anything else is uniform.
    plays = [a for a in legal if a["type"] == "play"]
    if plays and rng.random() < 0.8:
        return rng.choice(plays)
    return rng.choice(legal)


def prompted_seats(view: dict) -> list[int]:
    if view.get("to_act") is not None:
        return list(view["to_act"])
    if view.get("window"):
        return list(view["window"].get("asked", range(5)))
    return list(range(5))


def step(clients, game_id: int, rng: random.Random, observe=None) -> bool:
    """Apply one random legal action of a prompted seat; False when the deal is over.

    `observe(seat, kind, body)` sees every response (seat None: spectator).
    """
    public = get_view(clients[0], game_id)
    if observe:
        observe(0, "view", public)
    if public["phase"] in ("over", "void"):
        return False
    seats = prompted_seats(public)
    rng.shuffle(seats)
    for seat in seats:
        view = get_view(clients[seat], game_id)
        if observe:
            observe(seat, "view", view)
        if not view.get("legal_actions"):  # (none for a seat whose player left)
            continue
        action = choose(rng, view["legal_actions"])
        response = post_action(clients[seat], game_id, action, version=view["version"])
        assert response.status_code == 200, (action, response.content[:500])
        if observe:
            observe(seat, "action", response.json())
        return True
    raise AssertionError(f"no prompted seat has a legal action: {public}")


def play_deal(
    clients, game_id: int, rng: random.Random, observe=None, max_steps: int = 3000, table_steps: bool = True
) -> Game:
    """Play the deal out through the API; then, with `table_steps`, run its table's steps as the
    worker does after the commit (tests.conftest.deal_end_steps: tally, pause over, next deal)."""
    for _ in range(max_steps):
        if not step(clients, game_id, rng, observe):
            if table_steps:
                deal_end_steps()
            return Game.objects.get(pk=game_id)
    raise AssertionError("deal did not end")


def true_state(game_id: int):
    return engine.from_json(Game.objects.get(pk=game_id).state)


def walk(value):
    """Every dict and list inside a JSON value."""
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)
