"""A player's game history, `GET users/{id}/games` (docs/integrations.md "Bot accounts": their games are
marked in history): every deal he was dealt into, the seats bot accounts played, scores once over."""

import random

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from accounts.models import RatingChange, User
from games import services as game_services
from games.models import Game, GamePlayer
from matchmaking import services as table_services
from matchmaking.bots import bot_users_take
from matchmaking.models import Table
from tests.api.playing import play_deal
from tests.conftest import assert_error, established

pytestmark = pytest.mark.django_db


def _games(client, user_id: int, **query):
    return client.get(f"/api/v1/users/{user_id}/games", query)


def _integrator_bot(owner: User, name: str) -> User:
    bot = User(username=name, is_bot=True, bot_owner=owner)
    bot.set_unusable_password()
    bot.save()
    return bot


def test_a_table_with_bots_is_marked_in_every_sitters_history(make_user, make_client):
    """Seats 1-2 the server's bots, seat 3 an integrator's bot, seats 0 and 4 people."""
    _, staff_token = make_user(staff=True)
    staff = make_client(staff_token)
    table = staff.post("/api/v1/tables", {"preset": "weihai"}, format="json").json()
    owner, owner_token = make_user()
    human, human_token = make_user()
    other, _ = make_user()
    server_bots = bot_users_take(count=2)
    club_bot = _integrator_bot(owner, "club-bot")
    for seat, user in [(0, human), (1, server_bots[0]), (2, server_bots[1]), (3, club_bot), (4, other)]:
        table_services.table_join(table_id=table["id"], user=user, code=table["code"], seat=seat)
    game = Game.objects.get(table_id=table["id"])

    response = _games(make_client(human_token), human.pk)
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["user"] == human.pk and body["is_bot"] is False and body["next"] is None
    [row] = body["results"]
    assert row["game"] == game.pk and row["table"] == table["id"] and row["seat"] == 0
    assert row["status"] == "running" and row["preset"] == "weihai" and row["number"] == 0
    assert row["bots"] == [False, True, True, True, False] and row["with_bots"] is True
    assert row["played_by_bot"] is False and row["left"] is False
    # Nothing of a running deal's outcome (roles may still be hidden).
    assert row["role"] is None and row["score"] is None and row["finished_at"] is None

    # The integrator sees his bot's games, marked as a bot's.
    bot_games = _games(make_client(owner_token), club_bot.pk).json()
    assert bot_games["is_bot"] is True
    assert [(r["game"], r["seat"], r["played_by_bot"]) for r in bot_games["results"]] == [(game.pk, 3, True)]
    # Staff see a server bot's.
    server_bot_games = _games(staff, server_bots[0].pk).json()
    assert server_bot_games["is_bot"] is True and server_bot_games["results"][0]["seat"] == 1
    # The server plays its own bots only; the integrator's bot plays through the API.
    assert game.bots == [False, True, True, False, False]


def test_a_finished_deal_shows_role_score_and_rating(make_table):
    made = make_table(preset="weihai", setups=[{"seed": 11}])
    established(made["users"])  # a deal of accounts made for it is not rated
    game = play_deal(made["clients"], made["game"], random.Random(5))
    final = Game.objects.get(pk=game.pk).final
    assert game.status == "over" and not game.unscored

    def rows():
        for seat in (0, 3):
            user = made["users"][seat]
            found = _games(made["clients"][seat], user.pk).json()["results"]
            yield seat, next(r for r in found if r["game"] == game.pk)

    # Rated by the task the deal's commit sends, which a test transaction never commits: not yet.
    assert [row["rated"] for _, row in rows()] == [False, False]
    assert game_services.game_ratings_update(game_id=game.pk) is True  # what that task runs
    assert RatingChange.objects.filter(game_id=game.pk).count() == 5
    for seat, row in rows():
        assert row["status"] == "over" and row["rated"] is True
        assert row["score"] == final["scores"][seat]
        assert row["role"] == final["roles"][seat] and row["role"] is not None
        assert row["bots"] == [False] * 5 and row["with_bots"] is False and row["finished_at"] is not None


def test_pages_newest_first_with_a_cursor(make_user, make_client):
    _, staff_token = make_user(staff=True)
    staff = make_client(staff_token)
    table_id = staff.post("/api/v1/tables", {"preset": "pagat"}, format="json").json()["id"]
    player, token = make_user()
    seats = [{"user_id": player.pk, "username": player.username, "is_bot": False}] + [None] * 4
    table = Table.objects.get(pk=table_id)
    made = [
        game_services.game_start(table=table, number=n, setup={"seed": n}, seats=seats).pk for n in range(23)
    ]
    client = make_client(token)
    first = _games(client, player.pk).json()
    assert [r["game"] for r in first["results"]] == made[::-1][:20] and first["next"]
    second = _games(client, player.pk, cursor=first["next"]).json()
    assert [r["game"] for r in second["results"]] == made[::-1][20:] and second["next"] is None


def test_only_the_player_his_bots_owner_and_staff_see_it(make_user, make_client):
    player, token = make_user()
    snoop, snoop_token = make_user()
    owner, owner_token = make_user()
    bot = _integrator_bot(owner, "helper-bot")
    assert_error(_games(make_client(snoop_token), player.pk), 403, "permission_denied")
    assert_error(_games(make_client(snoop_token), bot.pk), 403, "permission_denied")
    assert_error(_games(make_client(token), 10**9), 404, "not_found")
    assert_error(_games(make_client(token), player.pk, cursor="not-a-cursor"), 400, "invalid_request")
    assert_error(_games(make_client(), player.pk), 401, "not_authenticated")
    assert _games(make_client(owner_token), bot.pk).status_code == 200
    _, staff_token = make_user(staff=True)
    assert _games(make_client(staff_token), player.pk).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_the_migration_indexes_deals_dealt_before_it():
    before = [
        ("games", "0003_game_bots_game_left_alter_game_status"),
        ("accounts", "0009_integrations"),
        ("matchmaking", "0007_tickets"),
    ]
    after = [("games", "0004_gameplayer")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    OldUser = old.get_model("accounts", "User")  # noqa: N806
    OldTable = old.get_model("matchmaking", "Table")  # noqa: N806
    OldGame = old.get_model("games", "Game")  # noqa: N806
    person = OldUser.objects.create(username="person", password="x")
    bot = OldUser.objects.create(username="bot-1", password="!", is_bot=True)
    table = OldTable.objects.create(preset="weihai", creator=person, deals=1)
    game = OldGame.objects.create(
        table=table,
        number=0,
        preset="weihai",
        setup={},
        state={},
        seat_user_ids=[person.pk, bot.pk, None, 10**9, None],
        players=["person", "bot-1", None, "gone", None],
    )
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(after)
    rows = executor.loader.project_state(after).apps.get_model("games", "GamePlayer").objects
    # A user who no longer exists has no row to point at; everyone else has one.
    assert sorted(rows.values_list("game_id", "seat", "user_id", "is_bot")) == [
        (game.pk, 0, person.pk, False),
        (game.pk, 1, bot.pk, True),
    ]
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert GamePlayer.objects.count() == 2
