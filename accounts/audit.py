"""Model history (django-auditlog) beside the explicit moderation log (ModerationAction).

auditlog records every change to the registered models, made anywhere, with the signed-in admin
user as its actor; ModerationAction says what a moderator decided and why. Game and Event are left
out on purpose: a deal's state changes on every move, and its event log is its own history.
"""

from auditlog.middleware import AuditlogMiddleware as _AuditlogMiddleware
from django.conf import settings


class AuditlogMiddleware(_AuditlogMiddleware):
    """auditlog's middleware, but the address recorded is the one the rate limits trust: the socket's,
    or the one the NUM_PROXIES trusted proxies appended; auditlog's own takes the first
    X-Forwarded-For entry, which the client writes."""

    @staticmethod
    def _get_remote_addr(request):
        proxies = settings.REST_FRAMEWORK.get("NUM_PROXIES") or 0
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
        if proxies and forwarded:
            addresses = [part.strip() for part in forwarded.split(",")]
            return addresses[-min(proxies, len(addresses))]
        return request.META.get("REMOTE_ADDR")


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
