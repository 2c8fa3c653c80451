"""A player's tournament entries when he deletes or exports his account (docs/client-guide.md "Your data"),
subscribed to accounts' hooks (accounts/account_hooks.py) in TournamentsConfig.ready."""

from typing import Any

from django.contrib.auth import get_user_model

from tournaments import services
from tournaments.models import Entry, TournamentStatus


def account_erase(*, user_id: int) -> None:
    """Inside the deletion's transaction: he leaves every tournament still open, through the one path
    a player leaves by (an entry before the start is removed; after it he withdraws and is not
    ranked). His seats were left already by matchmaking's own hook."""
    user = get_user_model().objects.get(pk=user_id)
    open_ones = Entry.objects.filter(
        user_id=user_id,
        withdrawn_at__isnull=True,
        tournament__status__in=[TournamentStatus.REGISTERING, TournamentStatus.RUNNING],
    )
    for tournament_id in open_ones.order_by("tournament_id").values_list("tournament_id", flat=True):
        services.tournament_leave(tournament_id=tournament_id, user=user)


def account_export(*, user_id: int) -> dict[str, Any]:
    """The `tournaments` section of `GET me/export` (its shape: accounts/account_apis.py)."""
    return {"tournaments": list(Entry.objects.filter(user_id=user_id).order_by("joined_at", "id"))}
