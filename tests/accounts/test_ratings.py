"""Ratings (accounts.services.ratings_record_deal, games.services.game_ratings_update and their APIs):
openskill Plackett-Luce per preset, the side-bias pseudo-player, exactly once per deal."""

import pytest

from accounts import services
from accounts.models import Rating, RatingChange, SideBias
from games import services as game_services
from games import tasks
from games.models import GameStatus
from tests.conftest import assert_error, established
from tests.games.trustees import finish_with_trustees

pytestmark = pytest.mark.django_db


def _scored_deal(make_table):
    """A scored deal that is rated (docs/matchmaking.md "Rated deals"): established accounts, three
    of them playing by hand and two on 托管."""
    for seed in range(20):
        setup = make_table(setups=[{"seed": seed}], deals=1)
        established(setup["users"])
        game = finish_with_trustees(setup, humans=(0, 1, 2))
        if game.status == GameStatus.OVER:
            return setup, game
    raise AssertionError("no scored deal")


@pytest.mark.parametrize("shape", ["2v3", "1v4"])
def test_the_initial_side_bias_predicts_equal_players_at_fifty_fifty(shape):
    model = services.rating_model()
    emperor_side, others = (int(n) for n in shape.split("v"))
    bias = model.rating(mu=services.rating_initial_bias_mu(shape=shape), sigma=model.sigma)
    teams = [[model.rating() for _ in range(emperor_side)] + [bias], [model.rating() for _ in range(others)]]
    win, lose = model.predict_win(teams)
    assert win == pytest.approx(0.5, abs=1e-6) and lose == pytest.approx(0.5, abs=1e-6)


def test_a_scored_deal_is_rated_once_even_if_the_task_runs_twice(make_table):
    setup, game = _scored_deal(make_table)
    assert tasks.game_ratings_update.run(game_id=game.pk) is True
    first = list(
        RatingChange.objects.filter(game_id=game.pk).values_list("user_id", "mu_after", "sigma_after")
    )
    ratings = list(Rating.objects.order_by("pk").values_list("user_id", "mu", "sigma", "deals"))
    bias = list(SideBias.objects.values_list("preset", "shape", "mu", "deals"))

    assert tasks.game_ratings_update.run(game_id=game.pk) is False
    assert game_services.game_ratings_update(game_id=game.pk) is False

    assert len(first) == 5 and {u for u, *_ in first} == {u.pk for u in setup["users"]}
    assert (
        list(RatingChange.objects.filter(game_id=game.pk).values_list("user_id", "mu_after", "sigma_after"))
        == first
    )
    assert list(Rating.objects.order_by("pk").values_list("user_id", "mu", "sigma", "deals")) == ratings
    assert list(SideBias.objects.values_list("preset", "shape", "mu", "deals")) == bias
    assert all(deals == 1 for *_, deals in ratings)
    assert bias[0][0] == game.preset and bias[0][3] == 1


def test_winners_gain_and_losers_lose_by_the_emperor_sides_score(make_table):
    _, game = _scored_deal(make_table)
    game_services.game_ratings_update(game_id=game.pk)
    roles = game.final["roles"]
    emperor_side = [s for s in range(5) if roles[s] in ("emperor", "guard", "soloist")]
    emperor_won = sum(game.final["scores"][s] for s in emperor_side) > 0
    by_user = {c.user_id: c for c in RatingChange.objects.filter(game_id=game.pk)}
    for seat, user_id in enumerate(game.seat_user_ids):
        change = by_user[user_id]
        won = (seat in emperor_side) == emperor_won
        assert change.result == (1 if won else -1)
        assert (change.mu_after > change.mu_before) == won
        assert change.sigma_after < change.sigma_before
    shape = SideBias.objects.get().shape
    assert shape == f"{len(emperor_side)}v{5 - len(emperor_side)}"


def test_a_draw_moves_nobody_up_or_down_much():
    model = services.rating_model()
    users = list(range(5))
    from accounts.models import User

    ids = [User.objects.create_user(username=f"draw{i}").pk for i in users]
    assert services.ratings_record_deal(
        game_id=1, preset="wuren", emperor_side=ids[:2], other_side=ids[2:], result=0
    )
    for change in RatingChange.objects.all():
        assert change.result == 0
        assert change.mu_after == pytest.approx(model.mu, abs=0.5)


def test_leaderboard_is_sorted_by_ordinal_and_per_preset(make_user, make_client):
    users = [make_user()[0] for _ in range(5)]
    ids = [u.pk for u in users]
    # The emperor's side (ids 0, 1) wins three deals in a row.
    for game_id in (101, 102, 103):
        services.ratings_record_deal(
            game_id=game_id, preset="weihai", emperor_side=ids[:2], other_side=ids[2:], result=1
        )
    services.ratings_record_deal(
        game_id=104, preset="pagat", emperor_side=ids[:1], other_side=ids[1:], result=-1
    )
    _, token = make_user()
    response = make_client(token).get("/api/v1/ratings/leaderboard", {"preset": "weihai"})
    assert response.status_code == 200
    entries = response.json()["entries"]
    assert [e["rank"] for e in entries] == [1, 2, 3, 4, 5]
    ordinals = [e["ordinal"] for e in entries]
    assert ordinals == sorted(ordinals, reverse=True)
    assert {e["user"] for e in entries[:2]} == set(ids[:2])
    for entry in entries:
        assert entry["ordinal"] == pytest.approx(entry["mu"] - 3 * entry["sigma"])
        assert entry["deals"] == 3
    pagat = make_client(token).get("/api/v1/ratings/leaderboard", {"preset": "pagat"}).json()["entries"]
    assert pagat[-1]["user"] == ids[0] and all(e["deals"] == 1 for e in pagat)


def test_leaderboard_needs_a_known_preset(make_user, make_client):
    _, token = make_user()
    assert_error(make_client(token).get("/api/v1/ratings/leaderboard"), 400, "invalid_request")
    assert_error(
        make_client(token).get("/api/v1/ratings/leaderboard", {"preset": "chess"}), 400, "invalid_request"
    )
    assert_error(
        make_client().get("/api/v1/ratings/leaderboard", {"preset": "weihai"}), 401, "not_authenticated"
    )


def test_user_ratings_show_each_preset_with_its_history(make_user, make_client):
    users, tokens = zip(*(make_user() for _ in range(5)), strict=True)
    ids = [u.pk for u in users]
    services.ratings_record_deal(
        game_id=7, preset="weihai", emperor_side=ids[:2], other_side=ids[2:], result=1
    )
    services.ratings_record_deal(
        game_id=8, preset="weihai", emperor_side=ids[:2], other_side=ids[2:], result=-1
    )
    token = tokens[0]  # his own (to others the history is empty: the test below)
    body = make_client(token).get(f"/api/v1/users/{ids[0]}/ratings").json()
    assert body["user"] == ids[0]
    (weihai,) = body["ratings"]
    assert weihai["preset"] == "weihai" and weihai["deals"] == 2
    assert [h["game"] for h in weihai["history"]] == [8, 7]
    assert [h["result"] for h in weihai["history"]] == [-1, 1]
    assert weihai["history"][0]["mu_after"] == pytest.approx(weihai["mu"])
    assert_error(make_client(token).get("/api/v1/users/999999999/ratings"), 404, "not_found")


@pytest.mark.django_db(transaction=True)
def test_two_runs_at_once_rate_the_deal_once():
    import threading

    from django.db import connection

    from accounts.models import User

    ids = [User.objects.create_user(username=f"race{i}").pk for i in range(5)]
    barrier = threading.Barrier(2)
    results = []

    def run():
        try:
            barrier.wait()
            results.append(
                services.ratings_record_deal(
                    game_id=77, preset="weihai", emperor_side=ids[:2], other_side=ids[2:], result=1
                )
            )
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False, True]
    assert RatingChange.objects.filter(game_id=77).count() == 5
    assert list(Rating.objects.values_list("deals", flat=True)) == [1] * 5
    assert SideBias.objects.get().deals == 1


def test_the_ratings_sweep_rates_deals_whose_task_was_lost(make_table):
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Game

    _, game = _scored_deal(make_table)
    assert game_services.games_ratings_sweep() == 0  # too recent: its own task may still come
    Game.objects.filter(pk=game.pk).update(finished_at=timezone.now() - timedelta(seconds=60))
    assert tasks.games_ratings_sweep.run() == 1
    assert RatingChange.objects.filter(game_id=game.pk).count() == 5
    assert game_services.games_ratings_sweep() == 0


def test_the_games_behind_a_players_ratings_follow_the_game_lists_privacy(make_user, make_client):
    """`GET users/{id}/ratings` names the deals behind each change: only those who may read the
    player's game list (`GET users/{id}/games`: the player, his bot's owner, staff) see them, so a
    private table's deal is not shown to a stranger through the ratings."""
    users = [make_user() for _ in range(5)]
    ids = [user.pk for user, _ in users]
    services.ratings_record_deal(
        game_id=7, preset="weihai", emperor_side=ids[:2], other_side=ids[2:], result=1
    )
    player = make_client(users[0][1])
    stranger = make_client(make_user()[1])
    staff = make_client(make_user(staff=True)[1])

    # The game list refuses a stranger; the ratings show him the rating itself, without its deals.
    assert_error(stranger.get(f"/api/v1/users/{ids[0]}/games"), 403, "permission_denied")
    (seen,) = stranger.get(f"/api/v1/users/{ids[0]}/ratings").json()["ratings"]
    assert seen["deals"] == 1 and seen["mu"] > 25 and seen["history"] == []

    for viewer in (player, staff):
        assert viewer.get(f"/api/v1/users/{ids[0]}/games").status_code == 200
        (own,) = viewer.get(f"/api/v1/users/{ids[0]}/ratings").json()["ratings"]
        assert [change["game"] for change in own["history"]] == [7]
