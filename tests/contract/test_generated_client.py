"""A client generated from the served schema, and nothing else, plays a whole deal against the live server.

If the schema declares a body wrongly, generation fails or the generated models cannot decode the
answers; if it leaves something out, the game cannot be followed to its end with the client alone.
"""

import importlib
import random

import pytest

from tests.contract.generated_client import PACKAGE, generate_client

pytestmark = pytest.mark.django_db(transaction=True)


def _module(path: str):
    return importlib.import_module(f"{PACKAGE}.{path}")


class GeneratedPlayer:
    """One guest, using only the generated package."""

    def __init__(self, base_url: str):
        auth_guest = _module("api.auth.auth_guest")
        client_module = _module("client")
        guest = auth_guest.sync(client=client_module.Client(base_url=base_url))
        assert type(guest).__name__ == "AuthUserToken", guest
        self.user_id = guest.user.id
        self.client = client_module.AuthenticatedClient(base_url=base_url, token=guest.token)

    def call(self, path: str, *args, expect: str, **kwargs):
        answer = _module(f"api.{path}").sync(*args, client=self.client, **kwargs)
        assert type(answer).__name__ == expect, answer
        return answer


def _body(model: str, data: dict):
    return getattr(_module("models"), model).from_dict(data)


def _events(player: GeneratedPlayer, path: str, expect: str, *args) -> list:
    events, after = [], 0
    while True:
        page = player.call(path, *args, expect=expect, after=after)
        events += page.events
        if page.last_seq == after:
            return events
        after = page.last_seq


def _prompted(view) -> list[int]:
    if view.to_act is not None:
        return list(view.to_act)
    return list(view.window.asked)


def test_a_generated_client_plays_a_full_deal(live_server, tmp_path):
    generate_client(live_server.url, tmp_path)
    players = [GeneratedPlayer(live_server.url) for _ in range(5)]
    table = players[0].call(
        "tables.table_create",
        body=_body("TableCreateRequest", {"preset": "weihai"}),
        expect="TableDetail",
    )
    for seat, player in enumerate(players):
        player.call(
            "tables.table_join",
            table.id,
            body=_body("TableJoinRequest", {"seat": seat}),
            expect="TableDetail",
        )
    started = [e for e in _events(players[0], "tables.table_events", "TableEvents", table.id)]
    deal_started = [e for e in started if type(e).__name__ == "DealStartedEvent"]
    assert len(deal_started) == 1
    game_id = deal_started[0].game
    rng = random.Random("generated-client")
    for _deal in range(4):  # a void deal is dealt again: follow the table's log to the next one
        for _step in range(3000):
            public = players[0].call("games.game_detail", game_id, expect="GameView")
            if public.phase in ("over", "void"):
                break
            seats = _prompted(public)
            seat = next(
                s
                for s in seats
                if players[s].call("games.game_detail", game_id, expect="GameView").legal_actions
            )
            view = players[seat].call("games.game_detail", game_id, expect="GameView")
            plays = [a for a in view.legal_actions if a.type_ == "play"]
            action = rng.choice(plays) if plays and rng.random() < 0.8 else rng.choice(view.legal_actions)
            after = players[seat].call(
                "games.game_action",
                game_id,
                body=_body("GameActionRequest", {**action.to_dict(), "expected_version": view.version}),
                expect="GameView",
            )
            assert after.version == view.version + 1
        else:
            raise AssertionError("the deal did not end")
        final = players[0].call("games.game_final", game_id, expect="GameFinal")
        assert len(final.hands) == 5 and len(final.scores) == 5 and sum(final.scores) == 0
        events = _events(players[1], "games.game_events", "GameEvents", game_id)
        kinds = {type(event).__name__ for event in events}
        if not final.void:
            assert {"PlayEvent", "PassEvent", "DealOverEvent"} <= kinds
            break
        table_log = _events(players[0], "tables.table_events", "TableEvents", table.id)
        game_id = [e for e in table_log if type(e).__name__ == "DealStartedEvent"][-1].game
    else:
        raise AssertionError("no scored deal in four")
    feed = _events(players[2], "me.me_events", "Feed")
    assert any(type(e).__name__ == "FeedDealStartedEvent" and e.game == game_id for e in feed)
    active = players[3].call("me.me_active", expect="MeActive")
    assert active is not None
