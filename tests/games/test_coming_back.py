"""Coming back (docs/client-guide.md "Coming back", docs/rules.md §5 D), at HTTP level on the
production profile (the tables' default pause and return time): a player away from his turn finds
his table and seat in `me/active` and takes the seat back in one step; away past the return time,
a bot takes his seat (quick match) or the table dissolves, and his feed says why.

Time is moved as the timer tests move it: deadlines and return times are set in the past, then the
task that would fire is run (tests/games/trustees.py); nothing sleeps."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import engine, selectors
from games.models import Game, GameStatus
from matchmaking.models import DEFAULT_RETURN_SECONDS, Seat, Table
from tests.conftest import feed_entries
from tests.games.trustees import deal_played_out, set_trustee
from tests.matchmaking.test_abandoned_tables import _guest, _quick_match_with_bots

pytestmark = pytest.mark.django_db


def _running(table_id: int) -> Game:
    return Game.objects.get(table_id=table_id, status=GameStatus.RUNNING)


def _away_through_a_deal(table_id: int, present: dict[int, object]) -> Game:
    """The deal runs to its end while the seats not in `present` are away: each of their prompts
    times out at its deadline (the seat goes on 托管, which then plays for it); then the table's
    steps run as the worker runs them (the pause over)."""
    game = deal_played_out(_running(table_id).pk, playing=present)
    assert game.status in (GameStatus.OVER, GameStatus.VOID)
    return game


def _quick_match(make_client) -> tuple[int, int, object, int, object]:
    """A quick-match weihai table with bots: two players (away, present) and three bots."""
    table_id, seats = _quick_match_with_bots([_guest(make_client), _guest(make_client)])
    (away_seat, away), (present_seat, present) = sorted(seats.items())
    assert Table.objects.get(pk=table_id).return_seconds == DEFAULT_RETURN_SECONDS >= 60
    return table_id, away_seat, away, present_seat, present


def test_a_player_back_within_the_return_time_finds_his_seat_and_takes_it_in_one_step(make_client):
    table_id, away_seat, away, present_seat, present = _quick_match(make_client)
    first = _away_through_a_deal(table_id, {present_seat: present})
    assert first.trustee[away_seat], "his prompts timed out: his seat went on 托管"

    # He comes back: one read tells him where he is and what to do.
    (active,) = away.get("/api/v1/me/active").json()["tables"]
    second = _running(table_id)
    assert active["table"] == table_id and active["seat"] == away_seat and active["game"] == second.pk
    assert active["trustee"] is True and active["trustee_locked"] is False
    assert active["return_by"] is not None and active["table_status"] == "playing"
    assert active["deal"]["game"] == second.pk and active["deal"]["version"] == second.version
    assert active["deal"]["trustee"] is True
    # One step: his seat is his again.
    back = away.post(f"/api/v1/games/{second.pk}/trustee", {"on": False}, format="json")
    assert back.status_code == 200, back.json()
    assert back.json()["trustee"][away_seat] is False

    # He plays on: every prompt of his is answered by his own moves, and the table keeps him.
    third_before = _away_through_a_deal(table_id, {present_seat: present, away_seat: away})
    assert not third_before.trustee[away_seat]
    table = Table.objects.get(pk=table_id)
    assert table.status == "playing" and table.return_by[away_seat] is None
    assert Seat.objects.get(table=table, seat=away_seat).user_id == active_user_id(away)
    assert feed_entries(away, "table_closed") == []
    assert len(feed_entries(away, "deal_over")) == 2


def active_user_id(client) -> int:
    return client.get("/api/v1/me").json()["id"]


def test_a_player_away_past_the_return_time_loses_his_seat_to_a_bot_at_quick_match(make_client):
    table_id, away_seat, away, present_seat, present = _quick_match(make_client)
    _away_through_a_deal(table_id, {present_seat: present})
    table = Table.objects.get(pk=table_id)
    assert table.status == "playing" and table.return_by[away_seat] is not None
    # The return time passes while the next deal runs with his seat on 托管.
    past = (timezone.now() - timedelta(seconds=1)).isoformat()
    Table.objects.filter(pk=table_id).update(return_by=[past if s == away_seat else None for s in range(5)])
    _away_through_a_deal(table_id, {present_seat: present})

    table = Table.objects.get(pk=table_id)
    assert table.status == "playing", "the table plays on with a bot in his place"
    assert Seat.objects.get(table=table, seat=away_seat).user.is_bot
    assert [entry["reason"] for entry in feed_entries(away, "table_closed")] == ["away"]
    assert away.get("/api/v1/me/active").json()["tables"] == []
    assert present.get("/api/v1/me/active").json()["tables"][0]["table"] == table_id


def test_a_player_away_past_the_return_time_dissolves_a_table_without_bots(make_table):
    setup = make_table(deals=5)
    present = {seat: client for seat, client in enumerate(setup["clients"]) if seat != 2}
    _away_through_a_deal(setup["table"], present)
    table = Table.objects.get(pk=setup["table"])
    assert table.status == "playing" and table.return_by[2] is not None
    assert setup["clients"][2].get("/api/v1/me/active").json()["tables"][0]["trustee"] is True
    past = (timezone.now() - timedelta(seconds=1)).isoformat()
    Table.objects.filter(pk=table.pk).update(return_by=[past if s == 2 else None for s in range(5)])
    _away_through_a_deal(setup["table"], present)

    table.refresh_from_db()
    assert table.status == "dissolved" and table.closed_reason == "trustee"
    for client in setup["clients"]:
        assert [entry["reason"] for entry in feed_entries(client, "table_closed")] == ["trustee"]
        assert client.get("/api/v1/me/active").json()["tables"] == []


@pytest.mark.parametrize("headers", [{}, {"HTTP_IDEMPOTENCY_KEY": "back-1"}], ids=["", "with a key"])
def test_the_players_own_action_takes_his_seat_off_trustee_even_when_it_is_refused(make_table, headers):
    setup = make_table()
    assert set_trustee(setup, 0, True).status_code == 200
    game = Game.objects.get(pk=setup["game"])
    state = selectors.game_state(game=game)
    assert 0 not in engine.to_act(state), "托管 answers his prompts at once"
    # Whatever he sends, his seat is his again; the action itself is judged as any other. With an
    # Idempotency-Key too: the key's transaction keeps what the refused request committed.
    response = setup["clients"][0].post(
        f"/api/v1/games/{game.pk}/actions", {"type": "pass"}, format="json", **headers
    )
    assert response.status_code == 409 and response.json()["code"] == "wrong_phase", response.json()
    game.refresh_from_db()
    assert game.trustee[0] is False
    assert setup["clients"][0].get(f"/api/v1/games/{game.pk}").json()["trustee"][0] is False


def test_a_locked_seat_is_not_taken_back_by_an_action(make_table):
    setup = make_table()
    for _ in range(4):  # more than three entries: locked for the deal (docs/rules.md §5)
        assert set_trustee(setup, 0, True).status_code == 200
        set_trustee(setup, 0, False)
    game = Game.objects.get(pk=setup["game"])
    assert game.trustee[0] is True and game.trustee_entries[0] == 4
    setup["clients"][0].post(f"/api/v1/games/{game.pk}/actions", {"type": "pass"}, format="json")
    game.refresh_from_db()
    assert game.trustee[0] is True
