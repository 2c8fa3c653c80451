"""Hidden information across tables (docs/tournaments.md "What a player can read"; issue 43 item 4):
while table B still plays a duplicate board that table A has finished, nothing a player of B can read
holds that board's seed, another seat's hand, or A's result on it."""

import pytest

from games.models import Game
from tests.tournaments.playing import current_tables, deal_play, tournament_create
from tournaments.models import Round

pytestmark = pytest.mark.django_db


def _values(body, kind):
    """Every value of `kind` anywhere in a JSON body (lists of strings are a hand's shape)."""
    if isinstance(body, dict):
        for value in body.values():
            yield from _values(value, kind)
    elif isinstance(body, list):
        if kind is list and body and all(isinstance(item, str) for item in body):
            yield sorted(body)
        for value in body:
            yield from _values(value, kind)
    elif kind is int and isinstance(body, int) and not isinstance(body, bool):
        yield body


def _readable(
    client, *, tournament: int, table: int, games: list[int], players: list[int]
) -> dict[str, object]:
    """Every answer a player can ask for about the tournament and another table of it."""
    urls = [
        "/api/v1/tournaments",
        "/api/v1/tournaments?status=running",
        f"/api/v1/tournaments/{tournament}",
        f"/api/v1/tournaments/{tournament}/standings",
        f"/api/v1/tournaments/{tournament}/rounds/1",
        f"/api/v1/tournaments/{tournament}/rounds/2",
        "/api/v1/me/events?after=0",
        "/api/v1/me/active",
        "/api/v1/tables?status=playing",
        f"/api/v1/tables/{table}",
        f"/api/v1/tables/{table}/events",
    ]
    for game in games:
        urls += [f"/api/v1/games/{game}{tail}" for tail in ("", "/final", "/replay", "/events")]
    for user in players:
        urls += [
            f"/api/v1/users/{user}/games",
            f"/api/v1/users/{user}/history",
            f"/api/v1/users/{user}/ratings",
        ]
    answers = {}
    for url in urls:
        response = client.get(url)
        assert response.status_code < 500, (url, response.content[:300])
        answers[url] = (response.status_code, response.json())
    return answers


def test_a_player_of_another_table_reads_nothing_of_a_board_it_still_plays(make_client, make_user):
    _, staff_token = make_user(staff=True)
    staff = make_client(staff_token)
    tournament = tournament_create(staff, rounds=1)
    clients = {}
    for _ in range(6):
        user, token = make_user()
        clients[user.pk] = make_client(token)
        assert clients[user.pk].post(f"/api/v1/tournaments/{tournament['id']}/join").status_code == 200
    assert staff.post(f"/api/v1/tournaments/{tournament['id']}/start").status_code == 200
    table_a, table_b = current_tables(tournament["id"])
    assert deal_play(table_a, clients)  # A plays board 0 out and is dealt board 1; B still plays board 0

    board0 = Game.objects.get(table_id=table_a.table_id, number=0)
    assert Game.objects.get(table_id=table_b.table_id, number=0).status == "running"
    seeds = Round.objects.get(tournament_id=tournament["id"]).seeds
    reader_seat, reader = next(
        (seat, user)
        for seat, (user, bot) in enumerate(zip(table_b.seats, table_b.bots, strict=True))
        if not bot
    )
    others_hands = [sorted(hand) for seat, hand in enumerate(board0.final["hands"]) if seat != reader_seat]
    answers = _readable(
        clients[reader],
        tournament=tournament["id"],
        table=table_a.table_id,
        games=list(Game.objects.filter(table_id=table_a.table_id).values_list("pk", flat=True)),
        players=[user for user, bot in zip(table_a.seats, table_a.bots, strict=True) if not bot],
    )
    for url, (_, body) in answers.items():
        assert not set(_values(body, int)) & set(seeds), url
        assert not [hand for hand in _values(body, list) if hand in others_hands], url
    # Table A is private to its players: its deals, replays and events are refused to B's player.
    for url, (status, _) in answers.items():
        if f"/tables/{table_a.table_id}" in url or "/games/" in url:
            assert status == 403, (url, status)
    round_1 = answers[f"/api/v1/tournaments/{tournament['id']}/rounds/1"][1]
    assert round_1["seeds"] is None and [board["results"] for board in round_1["boards"]] == [None, None]
    assert answers[f"/api/v1/tournaments/{tournament['id']}/standings"][1]["rounds_counted"] == 0

    # Once B has played board 0 too, its results at both tables are shown; the seeds wait for the round.
    assert deal_play(table_b, clients)
    round_1 = clients[reader].get(f"/api/v1/tournaments/{tournament['id']}/rounds/1").json()
    assert round_1["seeds"] is None and round_1["boards"][1]["results"] is None
    assert [result["scores"] for result in round_1["boards"][0]["results"]] == [
        board0.final["scores"],
        Game.objects.get(table_id=table_b.table_id, number=0).final["scores"],
    ]
