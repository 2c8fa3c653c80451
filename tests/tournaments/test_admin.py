"""The tournaments admin (docs/tournaments.md "Admin"): start and cancel through the services, with
model history naming the staff member; a round's page links each table's deals, its seeds hidden."""

import pytest
from auditlog.models import LogEntry
from django.contrib.auth.models import Permission

from games.models import Game
from tests.tournaments.playing import current_tables, tournament_create
from tournaments.models import Round, Tournament

pytestmark = pytest.mark.django_db


def _moderator(client, make_user):
    user, _ = make_user(staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_tournament", "change_tournament", "view_round"])
    )
    client.force_login(user)
    return user


def test_staff_start_and_cancel_from_the_admin_and_the_history_names_them(client, make_user, make_client):
    moderator = _moderator(client, make_user)
    staff = make_client(make_user(staff=True)[1])
    started, cancelled = tournament_create(staff), tournament_create(staff, name="other")
    for _ in range(2):
        player = make_client(make_user()[1])
        player.post(f"/api/v1/tournaments/{started['id']}/join")
    changelist = "/admin/tournaments/tournament/"
    client.post(changelist, {"action": "start", "_selected_action": [started["id"]]})
    client.post(changelist, {"action": "cancel", "_selected_action": [cancelled["id"]]})
    assert Tournament.objects.get(pk=started["id"]).status == "running"
    assert Tournament.objects.get(pk=cancelled["id"]).cancelled_reason == "staff"
    entry = LogEntry.objects.get_for_object(Tournament.objects.get(pk=cancelled["id"])).latest("timestamp")
    assert entry.actor == moderator and "cancelled" in str(entry.changes)

    round = Round.objects.get(tournament_id=started["id"])
    page = client.get(f"/admin/tournaments/round/{round.pk}/change/").content.decode()
    (row,) = current_tables(started["id"])
    game = Game.objects.get(table_id=row.table_id)
    assert f"/admin/games/game/{game.pk}/change/" in page
    assert all(str(seed) not in page for seed in round.seeds), "a running round's seeds are its hands"
