"""A player's tables, seats, tickets, penalties and reports when he deletes or exports his account
(docs/client-guide.md "Your data"), subscribed to accounts' hooks (accounts/account_hooks.py) in
MatchmakingConfig.ready."""

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Q

from games import account_data as game_account_data
from games import selectors as game_selectors
from games.models import GamePlayer
from matchmaking import services, tickets
from matchmaking.models import Invitation, Penalty, Report, Seat, TableEvent, TableStatus, Ticket


def account_erase(*, user_id: int) -> None:
    """Inside the deletion's transaction, the user row tombstoned already. The deals he played keep
    their records under his tombstone; his waiting tickets are cancelled; he leaves every table he
    sits at, through the one path a player leaves by (`table_leave`: in a running deal his seat
    plays on in 托管, or a bot takes it where the table lets bots replace leavers, docs/rules.md §5)."""
    user = get_user_model().objects.get(pk=user_id)
    # First: the deals' rows are locked before any table (games/account_data.py).
    game_account_data.game_players_rename(user_id=user_id, name=user.username)
    for event in TableEvent.objects.filter(data__user__id=user_id):
        event.data = {**event.data, "user": {**event.data["user"], "username": user.username}}
        event.save(update_fields=["data"])
    tickets.tickets_cancel_of_user(user_id=user_id, reason="account_deleted")
    seated = Seat.objects.filter(
        user_id=user_id, table__status__in=[TableStatus.WAITING, TableStatus.PLAYING]
    )
    for table_id in seated.order_by("table_id").values_list("table_id", flat=True):
        services.table_leave(table_id=table_id, user=user)
    # Invitations he sent or was sent name him to the other player: they go.
    Invitation.objects.filter(Q(inviter_id=user_id) | Q(invitee_id=user_id)).delete()


def account_export(*, user_id: int) -> dict[str, Any]:
    """The sections of `GET me/export` this app keeps (their shape: accounts/account_apis.py). His
    games are his own, at private tables too."""
    players = list(GamePlayer.objects.filter(user_id=user_id).select_related("game").order_by("id"))
    return {
        "games": game_selectors.user_games_rows(players=players),
        "penalties": list(Penalty.objects.filter(user_id=user_id).order_by("created_at", "id")),
        "reports_filed": list(Report.objects.filter(reporter_id=user_id).order_by("created_at", "id")),
        "tickets": list(Ticket.objects.filter(user_id=user_id).order_by("created_at", "id")),
    }
