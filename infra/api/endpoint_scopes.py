"""The scope each endpoint needs (docs/integrations.md), in one table, by URL name and method.

GET and HEAD need `read` unless listed here. A write that is not listed is open only to a token with
every scope its user may have (accounts.permissions.EndpointScope), and tests/integrations/
test_scopes.py fails until it is listed: a new endpoint cannot slip past the scopes unnoticed.
`NO_SCOPE`: any valid token (a token can always sign itself out). Managing the user's other
credentials needs `tokens` (docs/integrations.md "Scopes"): `read` alone must not be able to revoke
the tokens of the apps a player uses, nor sign him out everywhere.
"""

NO_SCOPE = object()

READ, PLAY, TABLES, WEBHOOKS, MODERATION = "read", "play", "tables", "webhooks", "moderation"
TOKENS = "tokens"

_MODERATION_ENDPOINTS = (
    "moderation-reports",
    "moderation-report-dismiss",
    "moderation-sanctions",
    "moderation-sanction-revoke",
    "moderation-game-abort",
    "moderation-seat-foul",
    "moderation-seat-collusion",
    "moderation-audit",
    "bots",
)

ENDPOINT_SCOPES: dict[str, dict[str, object]] = {
    "auth-logout": {"POST": NO_SCOPE},
    "auth-logout-all": {"POST": TOKENS},
    "auth-tokens": {"GET": TOKENS, "POST": TOKENS},
    "auth-token-detail": {"DELETE": TOKENS},
    # The account itself (docs/client-guide.md "Accounts"): upgrade, password and deletion take a
    # login token only besides (accounts/account_services.py); the export holds everything the
    # server keeps about the player, so `read` alone does not fetch it.
    "auth-upgrade": {"POST": TOKENS},
    "me-password": {"POST": TOKENS},
    "me": {"DELETE": TOKENS},
    "me-export": {"GET": TOKENS},
    "table-create": {"POST": TABLES},
    "table-seat-remove": {"POST": TABLES},
    "table-join": {"POST": PLAY},
    "table-leave": {"POST": PLAY},
    "table-invites": {"POST": PLAY},
    "invitation-decline": {"POST": PLAY},
    "game-actions": {"POST": PLAY},
    "game-trustee": {"POST": PLAY},
    "bench-bare": {"POST": PLAY},
    "report-create": {"POST": PLAY},
    # Matchmaking tickets (docs/matchmaking.md): taking one and cancelling it is playing.
    "ticket-create": {"POST": PLAY},
    "ticket-detail": {"DELETE": PLAY},
    # Push notifications (docs/notifications.md): a playing app registers its phone and keeps its
    # inbox and preferences.
    "me-devices": {"POST": PLAY},
    "me-device-detail": {"DELETE": PLAY},
    "me-notifications": {"PATCH": PLAY},
    "me-inbox-read": {"POST": PLAY},
    # Tournaments (docs/tournaments.md): creating and starting one is staff's table work; entering
    # and withdrawing is playing.
    "tournaments": {"POST": TABLES},
    "tournament-start": {"POST": TABLES},
    "tournament-join": {"POST": PLAY},
    "tournament-leave": {"POST": PLAY},
    "webhooks": {"GET": WEBHOOKS, "POST": WEBHOOKS},
    "webhook-detail": {"GET": WEBHOOKS, "DELETE": WEBHOOKS},
    "webhook-deliveries": {"GET": WEBHOOKS},
    "webhook-redeliver": {"POST": WEBHOOKS},
    **{name: {"GET": MODERATION, "POST": MODERATION} for name in _MODERATION_ENDPOINTS},
}

_READ_METHODS = ("GET", "HEAD", "OPTIONS")


def endpoint_scope(*, url_name: str | None, method: str) -> object | None:
    """The scope `method` on `url_name` needs; NO_SCOPE; or None when the write is unlisted."""
    listed = ENDPOINT_SCOPES.get(url_name or "", {})
    if method == "HEAD" and "GET" in listed:
        return listed["GET"]
    if method in listed:
        return listed[method]
    return READ if method in _READ_METHODS else None
