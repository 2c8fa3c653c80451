"""Inviting a player to a private table, and declining (docs/notifications.md "Invitations")."""

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from accounts.feed import feed_append
from infra.api.errors import ApiError, ErrorCode
from matchmaking.lock_objects import table_lock
from matchmaking.models import Invitation, Seat, TableStatus


def invitation_create(*, table_id: int, inviter, invitee_id: int) -> tuple[Invitation, bool]:
    """Invite `invitee_id` to the private table `table_id`, which `inviter` created; returns the
    invitation and whether it is new. Inviting the same player again answers the first invitation
    and appends nothing (a retried request buzzes his phone once)."""
    with transaction.atomic():
        table = table_lock(table_id=table_id)
        if table.creator_id != inviter.pk:
            raise ApiError(ErrorCode.PERMISSION_DENIED, "Only the table's creator invites to it.")
        if not table.private:
            raise ApiError(
                ErrorCode.INVALID_REQUEST,
                "A public table is in the lobby: share it, no invitation is needed.",
            )
        if table.status != TableStatus.WAITING:
            raise ApiError(ErrorCode.TABLE_CLOSED, "This table no longer takes players.")
        invitee = get_user_model().objects.filter(pk=invitee_id, is_active=True, is_bot=False).first()
        if invitee is None:
            raise ApiError(ErrorCode.NOT_FOUND, "No such player.")
        if invitee.pk == inviter.pk or Seat.objects.filter(table=table, user=invitee).exists():
            raise ApiError(ErrorCode.INVALID_REQUEST, "This player is already at the table.")
        existing = Invitation.objects.filter(table=table, invitee=invitee).first()
        if existing is not None:
            if existing.declined_at is not None:
                raise ApiError(
                    ErrorCode.PERMISSION_DENIED, "This player declined your invitation to this table."
                )
            return existing, False
        invitation = Invitation.objects.create(table=table, inviter=inviter, invitee=invitee)
        feed_append(
            user_id=invitee.pk,
            type="invited",
            data={"invitation": invitation.pk, "table": table.pk, "code": table.code, "by": inviter.username},
        )
    return invitation, True


def invitation_decline(*, invitation_id: int, user) -> None:
    updated = Invitation.objects.filter(pk=invitation_id, invitee=user, declined_at__isnull=True).update(
        declined_at=timezone.now()
    )
    if not updated and not Invitation.objects.filter(pk=invitation_id, invitee=user).exists():
        raise ApiError(ErrorCode.NOT_FOUND, "No such invitation.")
