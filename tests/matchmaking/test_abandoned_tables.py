"""A table nobody but the server's bots sits at closes at the end of the deal (docs/matchmaking.md
"Closing"): an abandoned quick-match table does not deal on forever among bots, however its last
player went."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from games.models import Game, GameStatus
from matchmaking import matching
from matchmaking.models import Seat, Table, Ticket
from tests.games.trustees import deal_played_out
from tests.moderation.helpers import make_moderator

pytestmark = pytest.mark.django_db


def _guest(make_client):
    token = make_client().post("/api/v1/auth/guest", {}, format="json").json()["token"]
    return make_client(token)


def _quick_match_with_bots(clients) -> tuple[int, dict[int, object]]:
    """Each client takes a quick-match ticket with (easy) bots; the matcher seats them with bots once
    the bots' wait is over. Returns the table and each player's client by seat."""
    tickets = []
    for client in clients:
        response = client.post(
            "/api/v1/matchmaking/tickets",
            {"preset": "weihai", "bots": True, "bot_level": "easy"},
            format="json",
        )
        assert response.status_code == 201, response.json()
        tickets.append(response.json()["id"])
    assert matching.tickets_match(
        now=timezone.now() + timedelta(seconds=settings.MATCHMAKING_BOTS_AFTER + 1)
    ) == len(clients)
    rows = Ticket.objects.filter(pk__in=tickets)
    table_id = rows[0].table_id
    seats = {row.seat: client for row, client in zip(rows.order_by("pk"), clients, strict=True)}
    return table_id, seats


def _running(table_id: int) -> Game:
    return Game.objects.select_related("table").get(table_id=table_id, status=GameStatus.RUNNING)


def _table(client, table_id: int) -> dict:
    response = client.get(f"/api/v1/tables/{table_id}")
    assert response.status_code == 200, response.json()
    return response.json()


def _leaves(*, client, table_id, seat, user, moderator):
    assert client.post(f"/api/v1/tables/{table_id}/leave", {}, format="json").status_code == 200


def _is_removed(*, client, table_id, seat, user, moderator):
    response = moderator.post(f"/api/v1/tables/{table_id}/seats/{seat}/remove", format="json")
    assert response.status_code == 200, response.json()


def _is_banned(*, client, table_id, seat, user, moderator):
    payload = {"user": user.pk, "kind": "ban", "reason": "abandoned a table"}
    assert moderator.post("/api/v1/moderation/sanctions", payload, format="json").status_code == 201


def _account_is_deactivated(*, client, table_id, seat, user, moderator):
    # What unticking "active" in the user admin does: his token stops working, his deadlines pass.
    type(user).objects.filter(pk=user.pk).update(is_active=False)
    assert client.get("/api/v1/me").status_code == 401


def _stops_playing(*, client, table_id, seat, user, moderator):
    pass  # his deadlines pass: he goes on 托管 and stays there


@pytest.mark.parametrize(
    ("goes", "reason"),
    [
        (_leaves, "no_humans"),
        (_is_removed, "no_humans"),
        (_is_banned, "trustee"),
        (_account_is_deactivated, "trustee"),
        # He may still come back: the table waits for him (return_seconds, docs/rules.md §5 D), and
        # when it is over a bot takes his seat and the table has no player left.
        (_stops_playing, "no_humans"),
    ],
)
def test_when_the_last_player_goes_the_table_closes_at_the_end_of_the_deal(
    goes, reason, make_user, make_client
):
    table_id, seats = _quick_match_with_bots([_guest(make_client), _guest(make_client)])
    # The table's creator (a matched table's first player) leaves first: deleting the creator's
    # account would take the whole table with it.
    creator_id = Table.objects.get(pk=table_id).creator_id
    users = {row.seat: row.user for row in Seat.objects.filter(table_id=table_id, seat__in=seats)}
    (first,) = [seat for seat in seats if users[seat].pk == creator_id]
    (last,) = [seat for seat in seats if seat != first]
    _, moderator = make_moderator(make_user, make_client)
    game = _running(table_id)

    _leaves(client=seats[first], table_id=table_id, seat=first, user=users[first], moderator=moderator)
    goes(client=seats[last], table_id=table_id, seat=last, user=users[last], moderator=moderator)
    deal_played_out(game.pk, playing={})  # over or void: either way the end of the deal
    if goes is _stops_playing:
        assert _table(moderator, table_id)["status"] == "playing"  # his return time runs
        Table.objects.filter(pk=table_id).update(  # ...and is over
            return_by=[timezone.now().isoformat() if s == last else None for s in range(5)]
        )
        deal_played_out(_running(table_id).pk, playing={})

    table = _table(moderator, table_id)
    assert table["status"] == "dissolved" and table["closed_reason"] == reason
    # No deal among bots alone (he who stopped playing had his return time: one deal more).
    assert Game.objects.filter(table_id=table_id).count() == (2 if goes is _stops_playing else 1)
    events = moderator.get(f"/api/v1/tables/{table_id}/events").json()["events"]
    assert [e["reason"] for e in events if e["type"] == "table_closed"] == [reason]


def test_a_table_with_one_player_left_deals_on(make_client):
    first, second = _guest(make_client), _guest(make_client)
    table_id, seats = _quick_match_with_bots([first, second])
    (leaver_seat, leaver), (stayer_seat, stayer) = sorted(seats.items())
    game = _running(table_id)

    assert leaver.post(f"/api/v1/tables/{table_id}/leave", {}, format="json").status_code == 200
    deal_played_out(game.pk, playing={stayer_seat: stayer})

    table = _table(stayer, table_id)
    assert table["status"] == "playing" and table["closed_reason"] is None
    assert table["seats"][leaver_seat]["user"]["is_bot"] is True
    assert _running(table_id).pk != game.pk
