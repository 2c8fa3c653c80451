from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import F, OuterRef, Q, Subquery
from django.utils import timezone

from accounts import account_hooks, token_cache
from accounts.models import (
    AuthToken,
    ModerationAction,
    Rating,
    RatingChange,
    Sanction,
    SanctionKind,
    TokenKind,
    User,
)
from accounts.usernames import username_key, username_skeletons
from infra.api.errors import ApiError, ErrorCode
from infra.timestamps import utc_iso


def token_ttl() -> timedelta:
    return timedelta(days=settings.TOKEN_TTL_DAYS)


def token_get_active(*, key: str) -> AuthToken | None:
    """The unrevoked, unexpired token with this key. Using a token extends it to TOKEN_TTL_DAYS from
    now (sliding expiry); the row is written at most once per tenth of the TTL (at most daily), not
    on every request.

    The same query says whether the user is under an active ban (`active_ban_id` on the user), so
    the permission that enforces bans (accounts/permissions.py) costs no query of its own."""
    now = timezone.now()
    key_hash = AuthToken.hash_key(key)
    remembered = token_cache.cached(key_hash=key_hash)
    if remembered is not None and remembered.expires_at > now and not _token_use_due(remembered, now):
        return remembered
    bans = _active(Sanction.objects.filter(user_id=OuterRef("user_id"), kind=SanctionKind.BAN), now=now)
    token = (
        AuthToken.objects.select_related("user")
        .annotate(active_ban_id=Subquery(bans.values("pk")[:1]))
        .filter(key_hash=key_hash, revoked_at__isnull=True, expires_at__gt=now)
        .first()
    )
    if token is None:
        return None
    token.user.active_ban_id = token.active_ban_id
    if _token_use_due(token, now):
        if token.kind == TokenKind.PERSONAL:
            token.last_used_at = now
            AuthToken.objects.filter(pk=token.pk).update(last_used_at=now)
        else:
            token.expires_at, token.last_used_at = now + token_ttl(), now
            AuthToken.objects.filter(pk=token.pk).update(expires_at=token.expires_at, last_used_at=now)
    token_cache.remember(token)
    return token


def _token_use_due(token: AuthToken, now: datetime) -> bool:
    """Is a write of this use due? A personal token's expiry is fixed and its last use is written
    at most once a minute; a login token slides to TOKEN_TTL_DAYS from now, written at most once
    per tenth of the TTL (at most daily)."""
    if token.kind == TokenKind.PERSONAL:
        return token.last_used_at is None or token.last_used_at < now - timedelta(seconds=60)
    ttl = token_ttl()
    return token.expires_at < now + ttl - min(ttl / 10, timedelta(days=1))


def user_by_username(*, username: str) -> User | None:
    """The user with this name in any spelling that compares equal (accounts/usernames.py)."""
    return User.objects.filter(username_key=username_key(username)).first()


def username_looks_taken(*, username: str, exclude_user_id: int | None = None) -> bool:
    """Whether another user's name looks like this one: the same TR 39 skeleton (accounts/usernames.py),
    one query on the indexed `username_skeleton`."""
    users = User.objects.filter(username_skeleton__in=username_skeletons(username))
    if exclude_user_id is not None:
        users = users.exclude(pk=exclude_user_id)
    return users.exists()


def _active(queryset, *, now: datetime):
    return queryset.filter(revoked_at__isnull=True).filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))


def sanction_active(*, user_id: int, kinds: Iterable[str]) -> Sanction | None:
    """The user's active sanction of these kinds that lasts longest (a permanent one first)."""
    queryset = _active(Sanction.objects.filter(user_id=user_id, kind__in=list(kinds)), now=timezone.now())
    return queryset.order_by(F("expires_at").desc(nulls_first=True), "-id").first()


def sanctions_active(*, user_id: int) -> list[Sanction]:
    """What restricts the user now (GET me/restrictions)."""
    return list(_active(Sanction.objects.filter(user_id=user_id), now=timezone.now()).order_by("-created_at"))


def banned_error(*, sanction: Sanction) -> ApiError:
    """`403 banned` (docs/client-guide.md §7 since v1.1) for this sanction."""
    what = "banned" if sanction.kind == "ban" else "barred from tickets and joining tables"
    until = f" until {utc_iso(sanction.expires_at)}" if sanction.expires_at else ""
    return ApiError(
        ErrorCode.BANNED,
        f"This account is {what}{until}.",
        extra={"kind": sanction.kind, "expires_at": utc_iso(sanction.expires_at)},
    )


def moderation_actions(
    *, user_id: int | None = None, moderator_id: int | None = None, before: int | None = None, limit: int = 50
) -> list[ModerationAction]:
    """Audit entries, newest first: those concerning `user_id` (as the player or the target) and/or
    made by `moderator_id`; `before` pages on by id."""
    queryset = ModerationAction.objects.select_related("moderator").order_by("-id")
    if user_id is not None:
        queryset = queryset.filter(Q(subject_user_id=user_id) | Q(target_type="user", target_id=user_id))
    if moderator_id is not None:
        queryset = queryset.filter(moderator_id=moderator_id)
    if before is not None:
        queryset = queryset.filter(pk__lt=before)
    return list(queryset[:limit])


def rating_leaderboard(*, preset: str, limit: int = 100) -> list[Rating]:
    """The preset's players by ordinal (mu - 3 sigma), best first."""
    # A deleted account (accounts/account_services.py) leaves the board, even if a deal it was in
    # when it was deleted rates it afterwards.
    return list(
        Rating.objects.filter(preset=preset, user__is_active=True)
        .select_related("user")
        .order_by("-ordinal", "user_id")[:limit]
    )


def user_games_visible(*, user: User, viewer: Any) -> bool:
    """Whether `viewer` may learn which deals `user` played: the player, the owner of a bot account,
    and staff. The one rule behind `GET users/{id}/games` and the deals named in `GET
    users/{id}/ratings` (a private table's deal is nobody else's business, docs/security.md)."""
    return viewer.pk == user.pk or viewer.pk == user.bot_owner_id or viewer.is_staff


def user_ratings(*, user_id: int, viewer: Any, history: int = 50) -> list[dict]:
    """Each preset's rating of a user (public, as on the leaderboard) with its latest changes,
    newest first; the changes name deals, so they are listed only to a viewer who may see the
    player's games (`user_games_visible`), and empty for anyone else."""
    user = User.objects.filter(pk=user_id).only("pk", "bot_owner_id").first()
    if user is None:
        raise ApiError(ErrorCode.NOT_FOUND, "No such user.")
    visible = user_games_visible(user=user, viewer=viewer)
    result = []
    for rating in Rating.objects.filter(user_id=user_id).order_by("preset"):
        changes = RatingChange.objects.filter(user_id=user_id, preset=rating.preset)
        latest = changes.order_by("-created_at", "-id")[:history]
        result.append({"rating": rating, "history": list(latest) if visible else []})
    return result


def personal_tokens(*, user: User) -> list[AuthToken]:
    """The user's personal access tokens that still work, newest first."""
    return list(
        AuthToken.objects.filter(
            user=user, kind=TokenKind.PERSONAL, revoked_at__isnull=True, expires_at__gt=timezone.now()
        ).order_by("-created_at", "-id")
    )


def login_sessions(*, user: User) -> list[AuthToken]:
    """The user's login tokens that still work (his signed-in devices), newest first."""
    return list(
        AuthToken.objects.filter(
            user=user, kind=TokenKind.LOGIN, revoked_at__isnull=True, expires_at__gt=timezone.now()
        ).order_by("-created_at", "-id")
    )


def account_export(*, user: User) -> dict:
    """`GET me/export` (docs/client-guide.md "Your data"): what the server keeps about the user.
    The sections of the other apps (games, penalties, reports, tickets) come from their hooks
    (accounts/account_hooks.py). Tokens are described, never their secrets or hashes."""
    return {
        "profile": user,
        "ratings": list(Rating.objects.filter(user=user).order_by("preset")),
        "rating_changes": list(RatingChange.objects.filter(user=user).order_by("created_at", "id")),
        "sanctions": list(Sanction.objects.filter(user=user).order_by("created_at", "id")),
        "tokens": list(AuthToken.objects.filter(user=user).order_by("created_at", "id")),
        "webhooks": list(user.webhooks.order_by("created_at", "id")),
        **account_hooks.account_export_run(user_id=user.pk),
    }
