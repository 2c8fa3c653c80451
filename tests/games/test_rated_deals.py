"""Which finished deals are rated (docs/matchmaking.md "Rated deals", games.selectors.game_unrated_reason):
a rating cannot be farmed with accounts made for the purpose, a private table, or seats left on 托管,
while matched and public deals among real players still move ratings."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from accounts.models import Rating, RatingChange
from games import tasks
from games.models import Game, GameStatus
from matchmaking import matching
from matchmaking.models import Ticket
from tests.conftest import established
from tests.games.trustees import deal_played_out

pytestmark = pytest.mark.django_db


def _ratings(client, user_id: int) -> list[dict]:
    response = client.get(f"/api/v1/users/{user_id}/ratings")
    assert response.status_code == 200, response.json()
    return response.json()["ratings"]


def _history_row(client, user_id: int, game_id: int) -> dict:
    response = client.get(f"/api/v1/users/{user_id}/games")
    assert response.status_code == 200, response.json()
    return next(row for row in response.json()["results"] if row["game"] == game_id)


def _scored_deal_at_a_players_table(make_user, make_client, *, private, aged, on_trustee):
    """The main account makes a table and four other accounts sit down (with the code); the seats in
    `on_trustee` go on 托管 and the others play by hand. Tables are made again until a deal is
    scored (a deal may be void, and a seat on 托管 at its end dissolves the table). Returns the main
    account's client and user, and the scored deal."""
    main, main_token = make_user()
    others = [make_user() for _ in range(4)]
    if aged:
        established([main, *(user for user, _ in others)])
    clients = [make_client(main_token)] + [make_client(token) for _, token in others]
    for _ in range(10):
        created = clients[0].post("/api/v1/tables", {"preset": "weihai", "private": private}, format="json")
        assert created.status_code == 201, created.json()
        table = created.json()
        for seat, client in enumerate(clients):
            joined = client.post(
                f"/api/v1/tables/{table['id']}/join", {"code": table["code"], "seat": seat}, format="json"
            )
            assert joined.status_code == 200, joined.json()
        game = Game.objects.get(table_id=table["id"], status=GameStatus.RUNNING)
        for seat in on_trustee:
            on = clients[seat].post(f"/api/v1/games/{game.pk}/trustee", {"on": True}, format="json")
            assert on.status_code == 200, on.json()
        playing = {seat: client for seat, client in enumerate(clients) if seat not in on_trustee}
        game = deal_played_out(game.pk, playing=playing)
        if game.status == GameStatus.OVER and not game.unscored:
            return clients[0], main, game
        for client in clients:  # a void deal is dealt again: leave, and start over at a new table
            client.post(f"/api/v1/tables/{table['id']}/leave", {}, format="json")
    raise AssertionError("no scored deal")


def _scored_deal_of_a_matched_table(game_id: int, playing: dict) -> Game:
    """Play the matched table's deals out until one is scored: a void deal (every seat declined
    the throne) is dealt again at the same table."""
    game = deal_played_out(game_id, playing=playing)
    while game.status == GameStatus.VOID:
        game = deal_played_out(
            Game.objects.get(table_id=game.table_id, number=game.number + 1).pk, playing=playing
        )
    assert game.status == GameStatus.OVER and not game.unscored
    return game


@pytest.mark.parametrize(
    ("private", "aged", "on_trustee", "reason"),
    [
        # The probe: accounts made seconds earlier, a private table, the four on 托管.
        (True, False, (1, 2, 3, 4), "private_table"),
        # Each rule alone: a private table of established players who all play ...
        (True, True, (), "private_table"),
        # ... a public table where four established accounts sit on 托管 ...
        (False, True, (1, 2, 3, 4), "few_players"),
        # ... or where the three others who play registered just now.
        (False, False, (1, 2), "few_players"),
    ],
)
def test_a_deal_that_measures_no_skill_leaves_every_rating_unchanged(
    private, aged, on_trustee, reason, make_user, make_client
):
    client, main, game = _scored_deal_at_a_players_table(
        make_user, make_client, private=private, aged=aged, on_trustee=on_trustee
    )

    assert tasks.game_ratings_update.run(game_id=game.pk) is False  # what the deal's commit sends

    assert _ratings(client, main.pk) == []
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    row = _history_row(client, main.pk, game.pk)
    assert row["rated"] is False and row["unrated_reason"] == reason
    # The sweep for lost rating tasks does not pick it up again either.
    Game.objects.filter(pk=game.pk).update(finished_at=timezone.now() - timedelta(seconds=60))
    assert tasks.games_ratings_sweep.run() == 0


def test_a_public_table_of_established_players_is_rated(make_user, make_client):
    # Two of the five on 托管: three seats played are enough (RATING_MIN_PLAYED_SEATS).
    client, main, game = _scored_deal_at_a_players_table(
        make_user, make_client, private=False, aged=True, on_trustee=(3, 4)
    )

    assert tasks.game_ratings_update.run(game_id=game.pk) is True

    (weihai,) = _ratings(client, main.pk)
    # sigma always shrinks (mu may stay at 25 after a drawn deal)
    assert weihai["deals"] == 1 and weihai["sigma"] < 25 / 3
    assert [change["game"] for change in weihai["history"]] == [game.pk]
    assert RatingChange.objects.filter(game_id=game.pk).count() == 5
    row = _history_row(client, main.pk, game.pk)
    assert row["rated"] is True and row["unrated_reason"] is None


def test_a_quick_match_with_bots_is_rated(make_user, make_client):
    """The server's bots are the server's own players: they count as played seats, so one
    established player matched with four bots plays rated deals."""
    user, token = make_user()
    established([user])
    client = make_client(token)
    ticket = client.post(
        "/api/v1/matchmaking/tickets", {"preset": "weihai", "bots": True, "bot_level": "easy"}, format="json"
    )
    assert ticket.status_code == 201, ticket.json()
    assert (
        matching.tickets_match(now=timezone.now() + timedelta(seconds=settings.MATCHMAKING_BOTS_AFTER + 1))
        == 1
    )
    row = Ticket.objects.get(pk=ticket.json()["id"])
    game = _scored_deal_of_a_matched_table(row.game_id, playing={row.seat: client})

    assert tasks.game_ratings_update.run(game_id=game.pk) is True

    (weihai,) = _ratings(client, user.pk)
    assert weihai["deals"] == 1 and [change["game"] for change in weihai["history"]] == [game.pk]


def test_fresh_accounts_queued_with_the_main_one_farm_nothing_either(make_user, make_client):
    """The same farm through quick match (five rated tickets at a quiet hour seat the five together):
    the table is public and matched, but four seats are accounts made a minute ago."""
    main, main_token = make_user()
    established([main])
    clients = [make_client(main_token)] + [make_client(make_user()[1]) for _ in range(4)]
    tickets = []
    for client in clients:
        response = client.post(
            "/api/v1/matchmaking/tickets", {"preset": "weihai", "bots": False}, format="json"
        )
        assert response.status_code == 201, response.json()
        tickets.append(response.json()["id"])
    assert matching.tickets_match() == 5
    rows = {row.pk: row for row in Ticket.objects.filter(pk__in=tickets)}
    seat_of = [rows[ticket].seat for ticket in tickets]
    playing = dict(zip(seat_of, clients, strict=True))
    game = _scored_deal_of_a_matched_table(rows[tickets[0]].game_id, playing=playing)

    assert tasks.game_ratings_update.run(game_id=game.pk) is False

    assert _ratings(clients[0], main.pk) == []
    assert _history_row(clients[0], main.pk, game.pk)["unrated_reason"] == "few_players"
