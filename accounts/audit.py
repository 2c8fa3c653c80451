"""Model history (django-auditlog) beside the explicit moderation log (ModerationAction).

auditlog records every change to the registered models, made anywhere, with the signed-in admin
user as its actor; ModerationAction says what a moderator decided and why. Game and Event are left
out on purpose: a deal's state changes on every move, and its event log is its own history.
"""

from asgiref.sync import iscoroutinefunction
from auditlog.context import set_extra_data
from django.conf import settings
from django.utils.decorators import sync_and_async_middleware

ADMIN_PREFIX = "/admin/"


def _client_address(request) -> str | None:
    """The address the rate limits trust: the socket's, or the one the NUM_PROXIES trusted proxies
    appended (auditlog's own middleware takes the first X-Forwarded-For entry, which clients write)."""
    proxies = settings.REST_FRAMEWORK.get("NUM_PROXIES") or 0
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if proxies and forwarded:
        addresses = [part.strip() for part in forwarded.split(",")]
        return addresses[-min(proxies, len(addresses))]
    return request.META.get("REMOTE_ADDR")


def _context(request, user) -> dict:
    actor = user if getattr(user, "is_authenticated", False) else None
    return {"actor": actor, "remote_addr": _client_address(request), "remote_port": None}


@sync_and_async_middleware
def auditlog_admin_middleware(get_response):
    """Names the signed-in admin user as the actor of the model history written by admin requests
    (django-auditlog). Only /admin/ uses sessions; API requests pass straight through, and the
    middleware is async-capable so that long-polls keep holding no thread."""

    if iscoroutinefunction(get_response):

        async def middleware(request):
            if not request.path.startswith(ADMIN_PREFIX):
                return await get_response(request)
            with set_extra_data(context_data=_context(request, await request.auser())):
                return await get_response(request)

    else:

        def middleware(request):
            if not request.path.startswith(ADMIN_PREFIX):
                return get_response(request)
            with set_extra_data(context_data=_context(request, request.user)):
                return get_response(request)

    return middleware


def audit_register() -> None:
    """Called once from AccountsConfig.ready."""
    from auditlog.registry import auditlog
    from django.contrib.auth.models import Group

    from accounts.models import Sanction, User

    auditlog.register(
        User,
        exclude_fields=["password", "last_login"],
        m2m_fields={"groups", "user_permissions"},
    )
    auditlog.register(Group, m2m_fields={"permissions"})
    auditlog.register(Sanction)
