"""Sanctions are enforced here, and only here: a DRF permission that every API view runs.

A view may relax it (`allowed_while_banned`: `GET me`, `GET me/restrictions`, `POST auth/logout`,
`POST auth/logout-all`) or tighten it (`refused_when_queue_banned`: joining tables, tickets). The
check reads the active sanctions on each request, so a ban bites at once and ends at its
`expires_at` without any job.
"""

from rest_framework.permissions import BasePermission

from accounts import selectors
from accounts.models import SanctionKind
from accounts.scopes import Scope, scopes_allowed, scopes_granted
from infra.api.endpoint_scopes import NO_SCOPE, endpoint_scope
from infra.api.errors import ApiError, ErrorCode


def sanctions_check(*, user, kinds: list[str]) -> None:
    """`403 banned` when `user` is under an active sanction of these kinds."""
    if not kinds:
        return
    if kinds == [SanctionKind.BAN] and getattr(user, "active_ban_id", "unknown") is None:
        return  # the bearer token's query found no active ban (accounts.selectors)
    sanction = selectors.sanction_active(user_id=user.pk, kinds=kinds)
    if sanction is not None:
        raise selectors.banned_error(sanction=sanction)


def scope_check(*, user, auth, scope: str) -> None:
    """`403 missing_scope` when the request's token does not hold `scope`."""
    if scope not in scopes_granted(user=user, auth=auth):
        raise missing_scope_error(scope=scope)


def reader_check(*, user, auth) -> None:
    """What a signed-in `GET` of a log needs (the event server's readers, events/access.py): no
    ban, and the `read` scope, decided as the API's permission classes below decide them."""
    sanctions_check(user=user, kinds=[SanctionKind.BAN])
    scope_check(user=user, auth=auth, scope=Scope.READ)


class IsNotBanned(BasePermission):
    def has_permission(self, request, view) -> bool:
        user = request.user
        if not getattr(user, "is_authenticated", False):
            return True  # IsAuthenticated answers for anonymous requests
        kinds = [] if getattr(view, "allowed_while_banned", False) else [SanctionKind.BAN]
        if getattr(view, "refused_when_queue_banned", False):
            kinds.append(SanctionKind.QUEUE_BAN)
        sanctions_check(user=user, kinds=kinds)
        return True


class ScopeRequired(BasePermission):
    """Refuses a request whose token lacks `scope`: `403 missing_scope` with `extra.scope`."""

    scope: str = ""

    def has_permission(self, request, view) -> bool:
        if not getattr(request.user, "is_authenticated", False):
            return True  # IsAuthenticated answers for anonymous requests
        scope_check(user=request.user, auth=request.auth, scope=self.scope)
        return True


class ReadScope(ScopeRequired):
    scope = Scope.READ


class PlayScope(ScopeRequired):
    scope = Scope.PLAY


class TablesScope(ScopeRequired):
    scope = Scope.TABLES


class WebhooksScope(ScopeRequired):
    scope = Scope.WEBHOOKS


class ModerationScope(ScopeRequired):
    scope = Scope.MODERATION


class TokensScope(ScopeRequired):
    scope = Scope.TOKENS


SCOPE_PERMISSIONS: dict[str, type[ScopeRequired]] = {
    permission.scope: permission
    for permission in (ReadScope, PlayScope, TablesScope, WebhooksScope, ModerationScope, TokensScope)
}


def missing_scope_error(*, scope: str) -> ApiError:
    return ApiError(
        ErrorCode.MISSING_SCOPE, f"This token lacks the `{scope}` scope.", extra={"scope": scope}
    )


class EndpointScope(BasePermission):
    """The default permission: the scope the endpoint needs for this method, from the one table
    `infra/api/endpoint_scopes.py` (GET and HEAD need `read` unless it says otherwise). A write that
    is not in the table needs every scope the user may have, so an endpoint nobody classified is
    open to login tokens only, never to a narrow token (tests/integrations walks the URL conf)."""

    def has_permission(self, request, view) -> bool:
        if not getattr(request.user, "is_authenticated", False):
            return True
        scope = endpoint_scope(url_name=_url_name(request), method=request.method)
        if scope is NO_SCOPE:
            return True
        if scope is not None:
            return SCOPE_PERMISSIONS[scope]().has_permission(request, view)
        granted = scopes_granted(user=request.user, auth=request.auth)
        missing = sorted(scopes_allowed(user=request.user) - granted)
        if missing:
            raise missing_scope_error(scope=missing[0])
        return True


def _url_name(request) -> str | None:
    match = getattr(request, "resolver_match", None) or getattr(request._request, "resolver_match", None)
    return match.url_name if match is not None else None
