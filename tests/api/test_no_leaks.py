"""Hidden information never reaches anyone it is hidden from (docs/rules.md §1 "Visibility").

Complete deals of every preset are played through the HTTP API by five clients and watched by a
spectator. Every response — views, events, errors, the final view before the end — is scanned for
another seat's cards, the seed, a `hands` key, and another seat's private events; the event server's
Server-Sent Events stream of each viewer (events/streams.py) carries exactly what his polls did.
"""

import json
import random
from collections import Counter

import pytest

from games import engine
from games.models import Event, Game
from tests.api import sse
from tests.api.playing import get_view, play_deal, post_action, walk
from tests.events import client as event_server

# The event server reads through its own connections (events/threads.py): the deal must be committed.
pytestmark = pytest.mark.django_db(transaction=True)


class LeakScanner:
    def __init__(self, game_id: int, clients, spectator, tokens):
        self.game_id = game_id
        self.clients = clients
        self.spectator = spectator
        self.tokens = tokens  # by seat, and the spectator's under None
        self.after = {seat: 0 for seat in [*range(5), None]}
        self.seen_events: dict = {seat: [] for seat in [*range(5), None]}
        self.checked = 0
        self.actions = 0
        self._decoded: tuple[int, object] | None = None

    def _state(self):
        version, state = Game.objects.values_list("version", "state").get(pk=self.game_id)
        if self._decoded is None or self._decoded[0] != version:
            self._decoded = (version, engine.from_json(state))
        return self._decoded[1]

    def check(self, seat: int | None, body) -> None:
        """`seat`: whose response this is (None: the spectator)."""
        state = self._state()
        over = state.phase in ("over", "void")
        text = json.dumps(body)
        if not over:
            assert str(state.seed) not in text, "seed leaked"
            for item in walk(body):
                if isinstance(item, dict):
                    assert "hands" not in item and "seed" not in item and "dealt" not in item, item.keys()
        others = [s for s in range(5) if s != seat]
        secret_hands = []
        if not over:
            for other in others:
                for hand in (state.hands[other], state.dealt[other]):
                    if len(hand) >= 3:
                        secret_hands.append(sorted(hand))
        # With four decks two seats can hold the very same cards late in a deal: a list made of
        # the viewer's own cards (his hand, a legal play) is his, and a play on the table is
        # public, whoever else holds the same cards.
        own = Counter(state.hands[seat]) if seat is not None and not over else Counter()
        played = {tuple(sorted(action.cards)) for _, action in state.log if action.type == "play"}
        for item in walk(body):
            if isinstance(item, list) and len(item) >= 3 and all(isinstance(c, str) for c in item):
                if not Counter(item) - own or tuple(sorted(item)) in played:
                    continue
                assert sorted(item) not in secret_hands, f"seat {seat} saw another hand: {item}"
        if isinstance(body, dict) and "hand" in body:
            assert seat is not None and body["hand"] == list(state.hands[seat])
        self.checked += 1

    def poll_events(self) -> None:
        for seat in [*range(5), None]:
            client = self.spectator if seat is None else self.clients[seat]
            response = client.get(f"/api/v1/games/{self.game_id}/events?after={self.after[seat]}")
            assert response.status_code == 200
            body = response.json()
            self.check(seat, body)
            self.seen_events[seat].extend(body["events"])
            self.after[seat] = body["last_seq"]

    def observe(self, seat, kind, body) -> None:
        self.check(seat, body)
        if kind == "action":
            self.actions += 1
            # Every few moves, so that a deal of 300 moves stays quick; the last poll sees everything.
            if self.actions % 3:
                return
            self.poll_events()
            # Things a client might try: the final view, another seat's move; errors must not leak.
            final = self.clients[seat].get(f"/api/v1/games/{self.game_id}/final")
            self.check(seat, final.json())
            spectator_view = self.spectator.get(f"/api/v1/games/{self.game_id}")
            self.check(None, spectator_view.json())
            # A refused move (someone else's turn, a card not held, a wrong phase) explains itself
            # without quoting anybody's cards.
            other = (seat + 1 + self.actions // 3) % 5
            # (Nine of one card: more than any preset deals, so never held. Three 3S, as before,
            # were now and then the other seat's legal play, and accepted.)
            refused = self.clients[other].post(
                f"/api/v1/games/{self.game_id}/actions",
                {"type": "play", "cards": ["3S"] * 9},
                format="json",
            )
            assert refused.status_code in (409, 422), refused.content
            self.check(other, refused.json())
            spectator_move = self.spectator.post(
                f"/api/v1/games/{self.game_id}/actions", {"type": "pass"}, format="json"
            )
            assert spectator_move.status_code == 403
            self.check(None, spectator_move.json())

    def assert_streams_match_the_log(self) -> None:
        """Each viewer's Server-Sent Events stream of the ended deal carries exactly the events his
        polls did (so the stream is redacted as the scanned JSON is), and ends by itself."""
        for seat in [*range(5), None]:
            path = f"/api/v1/games/{self.game_id}/events"
            answer = event_server.get(path, token=self.tokens[seat], headers=event_server.STREAM)
            assert answer.status == 200
            streamed = sse.parse(answer.body.decode())
            self.check(seat, streamed)
            assert streamed == self.seen_events[seat], seat

    def assert_private_events_stayed_private(self) -> None:
        rows = Event.objects.filter(game_id=self.game_id).values_list("seq", "data")
        private = {seq: data["private_to"] for seq, data in rows if "private_to" in data}
        for seat, events in self.seen_events.items():
            for event in events:
                if event["seq"] in private:
                    assert seat is not None and seat in private[event["seq"]], (seat, event)


@pytest.mark.parametrize("preset", engine.PRESETS)
def test_no_hidden_information_leaks_in_a_complete_deal(preset, make_table, make_client, make_user):
    setup = make_table(preset=preset)
    _, spectator_token = make_user()
    spectator = make_client(spectator_token)
    rng = random.Random(f"leaks-{preset}")
    game_id = setup["game"]
    deals_checked = 0
    for _ in range(4):  # a void deal is dealt again; follow the table to a scored deal
        tokens = {**dict(enumerate(setup["tokens"])), None: spectator_token}
        scanner = LeakScanner(game_id, setup["clients"], spectator, tokens)
        scanner.poll_events()
        game = play_deal(setup["clients"], game_id, rng, observe=scanner.observe)
        scanner.poll_events()
        scanner.assert_private_events_stayed_private()
        scanner.assert_streams_match_the_log()
        assert scanner.checked > 20
        deals_checked += 1
        final = setup["clients"][0].get(f"/api/v1/games/{game_id}/final").json()
        assert final["seed"] == game.setup["seed"]
        if game.status == "over":
            break
        game_id = setup["staff"].get(f"/api/v1/tables/{setup['table']}").json()["current_game"]
    assert deals_checked >= 1


def _swap_plain_cards(hands: list[list[str]], a: int, b: int) -> list[list[str]] | None:
    """Exchange one plain natural card of seat a with a different one of seat b (same sizes)."""
    for card_a in hands[a]:
        for card_b in hands[b]:
            if card_a[0] in "3456789TJQK" and card_b[0] in "3456789TJQK" and card_a[0] != card_b[0]:
                out = [list(h) for h in hands]
                out[a].remove(card_a)
                out[b].remove(card_b)
                out[a].append(card_b)
                out[b].append(card_a)
                return out
    return None


@pytest.mark.parametrize("preset", ["weihai", "wuren"])
def test_a_seat_view_does_not_depend_on_other_hands(preset, make_table):
    rules = engine.preset(preset)
    state = engine.new_deal(rules, seed=2024)
    hands = [list(h) for h in state.hands]
    viewer = state.candidate
    others = [s for s in range(5) if s != viewer]
    swapped = _swap_plain_cards(hands, others[0], others[1])
    assert swapped is not None
    base = {"candidate": state.candidate, "aside": list(state.aside)}
    first = make_table(preset=preset, setups=[{"hands": hands, **base}])
    second = make_table(preset=preset, setups=[{"hands": swapped, **base}])
    ignored = {"id", "table_id", "version", "deadline", "players"}

    def visible(setup, seat):
        view = get_view(setup["clients"][seat], setup["game"])
        return {k: v for k, v in view.items() if k not in ignored}

    for seat in [viewer, others[2], others[3]]:
        assert visible(first, seat) == visible(second, seat)
    # And after the same first action.
    action = get_view(first["clients"][viewer], first["game"])["legal_actions"][0]
    assert post_action(first["clients"][viewer], first["game"], action, version=0).status_code == 200
    assert post_action(second["clients"][viewer], second["game"], action, version=0).status_code == 200
    for seat in [viewer, others[2], others[3]]:
        assert visible(first, seat) == visible(second, seat)
