"""The events long-poll wakes up when a move commits: through Redis, or by re-reading the database."""

import threading
import time

import pytest
from django.db import connection

from games import engine
from games.models import Game
from tests.api.playing import get_view, post_action
from tests.conftest import require_local_redis

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("mode", ["redis", "polling"])
def test_a_waiting_client_is_woken_by_a_move(mode, make_table, make_client, settings):
    if mode == "redis":
        require_local_redis()
        settings.REDIS_URL = "redis://127.0.0.1:6379/14"
        # A slow fallback poll proves the wake-up came through Redis.
        settings.EVENTS_POLL_INTERVAL = 20
    else:
        settings.REDIS_URL = None
        settings.EVENTS_POLL_INTERVAL = 0.1
    setup = make_table()
    watcher = setup["clients"][0]
    last = watcher.get(f"/api/v1/games/{setup['game']}/events").json()["last_seq"]
    result = {}

    def wait() -> None:
        try:
            started = time.monotonic()
            response = make_client(setup["tokens"][0]).get(
                f"/api/v1/games/{setup['game']}/events?after={last}&wait=15"
            )
            result["elapsed"] = time.monotonic() - started
            result["body"] = response.json()
        finally:
            connection.close()

    thread = threading.Thread(target=wait)
    thread.start()
    time.sleep(0.5)
    state = engine.from_json(Game.objects.get(pk=setup["game"]).state)
    seat = engine.to_act(state)[0]
    view = get_view(setup["clients"][seat], setup["game"])
    assert post_action(setup["clients"][seat], setup["game"], view["legal_actions"][0]).status_code == 200
    thread.join(timeout=30)
    assert result["elapsed"] < 5, result
    assert result["body"]["version"] == 1
    assert result["body"]["last_seq"] > last
