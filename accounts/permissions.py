"""Sanctions are enforced here, and only here: a DRF permission that every API view runs.

A view may relax it (`allowed_while_banned`: `GET me`, `GET me/restrictions`, `POST auth/logout`,
`POST auth/logout-all`) or tighten it (`refused_when_queue_banned`: joining tables, tickets). The
check reads the active sanctions on each request, so a ban bites at once and ends at its
`expires_at` without any job.
"""

from rest_framework.permissions import BasePermission

from accounts import selectors
from accounts.models import SanctionKind


class IsNotBanned(BasePermission):
    def has_permission(self, request, view) -> bool:
        user = request.user
        if not getattr(user, "is_authenticated", False):
            return True  # IsAuthenticated answers for anonymous requests
        kinds = [] if getattr(view, "allowed_while_banned", False) else [SanctionKind.BAN]
        if getattr(view, "refused_when_queue_banned", False):
            kinds.append(SanctionKind.QUEUE_BAN)
        if not kinds:
            return True
        if kinds == [SanctionKind.BAN] and getattr(user, "active_ban_id", "unknown") is None:
            return True  # the bearer token's query found no active ban (accounts.selectors)
        sanction = selectors.sanction_active(user_id=user.pk, kinds=kinds)
        if sanction is not None:
            raise selectors.banned_error(sanction=sanction)
        return True
