"""Driving a tournament in tests: create it through the API, play its rounds as the server would."""

from games import selectors as game_selectors
from matchmaking.models import Seat, TableStatus
from tests.games.trustees import deal_played_out
from tournaments import tasks
from tournaments.models import Round, RoundTable

FIELDS = {
    "name": "保皇比赛",
    "preset": "weihai",
    "format": "swiss",
    "duplicate": True,
    "rounds": 2,
    "deals_per_round": 2,
    "max_players": 20,
}


def tournament_create(staff, **fields) -> dict:
    response = staff.post("/api/v1/tournaments", {**FIELDS, **fields}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def current_tables(tournament_id: int) -> list[RoundTable]:
    round = Round.objects.filter(tournament_id=tournament_id).order_by("-number").first()
    return list(round.tables.select_related("table").order_by("number"))


def deal_play(row: RoundTable, clients: dict[int, object]) -> bool:
    """Play the running deal of `row`'s table to its end (players by hand, bots as their task);
    False when the table has closed."""
    row.table.refresh_from_db()
    if row.table.status != TableStatus.PLAYING:
        return False
    game_id = game_selectors.game_running_id(table_id=row.table_id)
    seated = dict(Seat.objects.filter(table_id=row.table_id).values_list("seat", "user_id"))
    deal_played_out(game_id, {seat: clients[user] for seat, user in seated.items() if user in clients})
    return True


def round_play(tournament_id: int, clients: dict[int, object]) -> None:
    """Play every table of the current round to its close, then step the tournament as beat does."""
    for row in current_tables(tournament_id):
        while deal_play(row, clients):
            pass
    tasks.tournaments_sweep()
