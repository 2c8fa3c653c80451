"""A real event end to end (issue 43 item 6): seven guests and bots, duplicate Swiss, 2 rounds x 2 boards."""

import pytest

from tests.tournaments.playing import current_tables, round_play, tournament_create
from tournaments import scoring
from tournaments.models import RoundTable

pytestmark = pytest.mark.django_db


def _feed(client, after: int) -> tuple[list[dict], int]:
    """The player's tournament entries after `after`, every page of his feed read; and the cursor to
    read on from. Read as a client follows its feed, round by round: a feed keeps its newest 500
    entries, which two rounds of deals may outgrow."""
    entries = []
    while True:
        response = client.get("/api/v1/me/events", {"after": after})
        assert response.status_code == 200
        body = response.json()
        if not body["events"]:
            return [event for event in entries if event["type"].startswith("tournament_")], after
        entries += body["events"]
        after = body["last_seq"]


def test_seven_guests_play_a_duplicate_swiss_event_to_its_standings(make_client, make_user):
    _, staff_token = make_user(staff=True)
    staff = make_client(staff_token)
    tournament = tournament_create(staff)
    url = f"/api/v1/tournaments/{tournament['id']}"
    statuses = [tournament["status"]]
    clients = {}
    for _ in range(7):
        guest = make_client().post("/api/v1/auth/guest").json()
        client = make_client(guest["token"])
        assert client.post(f"{url}/join").status_code == 200
        clients[guest["user"]["id"]] = client
    assert staff.post(f"{url}/start").status_code == 200
    statuses.append(staff.get(url).json()["status"])

    followed = {user: ([], 0) for user in clients}

    def follow() -> None:
        for user, client in clients.items():
            entries, after = _feed(client, followed[user][1])
            followed[user] = (followed[user][0] + entries, after)

    for number in (1, 2):
        rows = current_tables(tournament["id"])
        follow()
        # Seven players: tables of 4 and 3 players, the rest bots (never more than three a table).
        assert sorted(sum(not bot for bot in row.bots) for row in rows) == [3, 4]
        round_play(tournament["id"], clients)
        detail = staff.get(f"{url}/rounds/{number}").json()
        assert detail["status"] == "finished" and len(detail["seeds"]) == 2
        # The same hands per board at both tables, read from each table's final views by its players.
        for board in detail["boards"]:
            hands = []
            for row, result in zip(rows, board["results"], strict=True):
                player = next(clients[user] for user, bot in zip(row.seats, row.bots, strict=True) if not bot)
                final = player.get(f"/api/v1/games/{result['game']}/final").json()
                assert final["scores"] == result["scores"] and final["start_seat"] == 0
                hands.append(final["hands"])
            assert hands[0] == hands[1]
    statuses.append(staff.get(url).json()["status"])
    assert statuses == ["registering", "running", "finished"]
    follow()

    # Matchpoints recomputed from the boards' scores equal the served standings.
    results = []
    for number in (1, 2):
        detail = staff.get(f"{url}/rounds/{number}").json()
        for board in detail["boards"]:
            for table, result in zip(detail["tables"], board["results"], strict=True):
                holders = tuple(None if s["bot"] else s["user"] for s in table["seats"])
                results.append(
                    scoring.BoardResult(
                        number, board["number"], table["number"], tuple(result["scores"]), holders
                    )
                )
    points, score = scoring.totals(results, duplicate=True)
    standings = staff.get(f"{url}/standings").json()
    assert standings["rounds_counted"] == 2 and len(standings["results"]) == 7
    assert {row["user"]: (row["matchpoints"], row["score"]) for row in standings["results"]} == {
        user: (points[user], score[user]) for user in clients
    }
    keys = [(-row["matchpoints"], -row["score"], -row["rating"]) for row in standings["results"]]
    assert keys == sorted(keys) and standings["results"][0]["rank"] == 1

    # Each player's feed: his table and seat each round, then his rank, in order.
    ranks = {row["user"]: row["rank"] for row in standings["results"]}
    for user in clients:
        entries = followed[user][0]
        assert [entry["type"] for entry in entries] == [
            "tournament_round",
            "tournament_round",
            "tournament_finished",
        ]
        for number, entry in enumerate(entries[:2], start=1):
            row = RoundTable.objects.get(
                round__tournament_id=tournament["id"], round__number=number, table_id=entry["table"]
            )
            assert row.seats[entry["seat"]] == user and entry["round"] == number
        assert entries[2]["rank"] == ranks[user]
