import secrets
from datetime import datetime
from functools import lru_cache

from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts import selectors, throttles
from accounts.feed import feed_append
from accounts.models import (
    AuthToken,
    ModerationAction,
    Rating,
    RatingChange,
    Sanction,
    SanctionKind,
    SideBias,
    User,
)
from accounts.usernames import username_is_reserved, username_normalize
from config.api.errors import ApiError, ErrorCode


def token_create(*, user: User) -> str:
    """Issue a new token and return its key; the key itself is never stored."""
    key = AuthToken.new_key()
    AuthToken.objects.create(
        user=user, key_hash=AuthToken.hash_key(key), expires_at=timezone.now() + selectors.token_ttl()
    )
    return key


def _username_taken() -> ApiError:
    return ApiError(
        ErrorCode.INVALID_REQUEST, "That username is taken.", extra={"fields": {"username": ["taken"]}}
    )


def user_register(*, username: str, password: str) -> tuple[User, str]:
    username = username_normalize(username)
    if username_is_reserved(username):
        raise ApiError(
            ErrorCode.INVALID_REQUEST,
            "Names starting with guest- are kept for guest accounts.",
            extra={"fields": {"username": ["reserved"]}},
        )
    try:
        validate_password(password)
    except DjangoValidationError as exc:
        raise ApiError(
            ErrorCode.INVALID_REQUEST, "The password is too weak.",
            extra={"fields": {"password": exc.messages}}
        ) from exc
    if selectors.user_by_username(username=username) is not None:
        raise _username_taken()
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password)
            key = token_create(user=user)
    except IntegrityError as exc:
        # The same name in another case, registered between the check and the insert.
        raise _username_taken() from exc
    return user, key


def user_register_guest() -> tuple[User, str]:
    with transaction.atomic():
        user = User(username=f"guest-{secrets.token_hex(6)}", is_guest=True)
        user.set_unusable_password()
        user.save()
        key = token_create(user=user)
    return user, key


def token_obtain(*, username: str, password: str) -> str:
    """Sign in. After LOGIN_FAILURES_MAX wrong passwords for one account within the window, its
    logins answer 429 without the password being checked, from whatever address they come."""
    username = username_normalize(username)
    throttles.login_failures_check(username=username)
    user = authenticate(username=username, password=password)
    if user is None:
        throttles.login_failure_record(username=username)
        raise ApiError(ErrorCode.NOT_AUTHENTICATED, "Wrong username or password.")
    throttles.login_failures_clear(username=username)
    ban = selectors.sanction_active(user_id=user.pk, kinds=[SanctionKind.BAN])
    if ban is not None:
        raise selectors.banned_error(sanction=ban)
    return token_create(user=user)


def token_revoke(*, token: AuthToken) -> None:
    AuthToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())


def tokens_revoke_all(*, user: User) -> int:
    """Sign out everywhere: every token of `user` stops working. Returns how many were active."""
    return AuthToken.objects.filter(user=user, revoked_at__isnull=True).update(revoked_at=timezone.now())


def moderation_action_record(
    *,
    moderator: User,
    action: str,
    target_type: str,
    target_id: int,
    reason: str,
    source: str,
    subject_user_id: int | None = None,
    details: dict | None = None,
) -> ModerationAction:
    """Append one entry to the audit log; call it inside the transaction of the action it records."""
    return ModerationAction.objects.create(
        moderator=moderator,
        action=action,
        target_type=target_type,
        target_id=target_id,
        subject_user_id=subject_user_id,
        reason=reason,
        details=details or {},
        source=source,
    )


def sanction_create(
    *,
    user: User,
    kind: str,
    reason: str,
    moderator: User,
    expires_at: datetime | None,
    source: str,
    report_id: int | None = None,
) -> Sanction:
    """Impose a sanction and record it. Effective at the next request of the user: the permission
    check (accounts/permissions.py) reads active sanctions on every request. The effects on games
    and tickets are matchmaking's (matchmaking/moderation/services.py)."""
    if kind not in SanctionKind.values:
        raise ApiError(ErrorCode.INVALID_REQUEST, f"Unknown sanction kind {kind!r}.")
    if not reason.strip():
        raise ApiError(
            ErrorCode.INVALID_REQUEST, "A reason is required.", extra={"fields": {"reason": ["required"]}}
        )
    if expires_at is not None and expires_at <= timezone.now():
        raise ApiError(
            ErrorCode.INVALID_REQUEST, "expires_at is in the past.",
            extra={"fields": {"expires_at": ["in the past"]}}
        )
    if user.pk == moderator.pk:
        raise ApiError(ErrorCode.INVALID_REQUEST, "A moderator cannot sanction himself.")
    with transaction.atomic():
        sanction = Sanction.objects.create(
            user=user, kind=kind, reason=reason, moderator=moderator, expires_at=expires_at
        )
        moderation_action_record(
            moderator=moderator,
            action="sanction",
            target_type="sanction",
            target_id=sanction.pk,
            subject_user_id=user.pk,
            reason=reason,
            source=source,
            details={"kind": kind, "expires_at": selectors.iso(expires_at), "report": report_id},
        )
        # The user's feed (CONTRACT §5): his client learns of it at once, with when it ends.
        feed_append(
            user_id=user.pk, type="sanction", data={"kind": kind, "expires_at": selectors.iso(expires_at)}
        )
    return sanction


def sanction_revoke(*, sanction_id: int, moderator: User, note: str, source: str) -> Sanction:
    """End a sanction now. Revoking one twice is refused; an expired one may still be revoked (the
    record then says a moderator ended it)."""
    if not note.strip():
        raise ApiError(
            ErrorCode.INVALID_REQUEST, "A note is required.", extra={"fields": {"note": ["required"]}}
        )
    with transaction.atomic():
        sanction = Sanction.objects.select_for_update().filter(pk=sanction_id).first()
        if sanction is None:
            raise ApiError(ErrorCode.NOT_FOUND, "No such sanction.")
        if sanction.revoked_at is not None:
            raise ApiError(ErrorCode.INVALID_REQUEST, "This sanction is already revoked.")
        sanction.revoked_at = timezone.now()
        sanction.revoked_by = moderator
        sanction.revoke_note = note
        sanction.save(update_fields=["revoked_at", "revoked_by", "revoke_note"])
        moderation_action_record(
            moderator=moderator,
            action="revoke",
            target_type="sanction",
            target_id=sanction.pk,
            subject_user_id=sanction.user_id,
            reason=note,
            source=source,
            details={"kind": sanction.kind},
        )
    return sanction


@lru_cache(maxsize=1)
def rating_model():
    """openskill's Plackett-Luce with its defaults (mu 25, sigma 25/3, tau 25/300)."""
    from openskill.models import PlackettLuce

    return PlackettLuce()


def rating_initial_bias_mu(*, shape: str) -> float:
    """A team's strength is the sum of its members' mu: the smaller side starts with the missing
    players' worth, so equal players are predicted 50/50 before anything is learned."""
    emperor_side, others = (int(n) for n in shape.split("v"))
    return (others - emperor_side) * rating_model().mu


def ratings_record_deal(
    *, game_id: int, preset: str, emperor_side: list[int], other_side: list[int], result: int
) -> bool:
    """Rate one scored deal: the emperor's side (plus the side-bias pseudo-player of this preset and
    team shape) against the rest, ranked by `result` (1: emperor's side won, -1: lost, 0: draw).

    Exactly once per deal: the side-bias row is locked first, so two runs for the same deal queue up
    and the second finds the deal's RatingChange rows and returns False (the unique constraint on
    (game_id, user) backs this up).
    """
    model = rating_model()
    shape = f"{len(emperor_side)}v{len(other_side)}"
    with transaction.atomic():
        SideBias.objects.get_or_create(
            preset=preset,
            shape=shape,
            defaults={"mu": rating_initial_bias_mu(shape=shape), "sigma": model.sigma},
        )
        bias = SideBias.objects.select_for_update().get(preset=preset, shape=shape)
        if RatingChange.objects.filter(game_id=game_id).exists():
            return False
        user_ids = sorted({*emperor_side, *other_side})
        for user_id in user_ids:
            Rating.objects.get_or_create(
                user_id=user_id,
                preset=preset,
                defaults={"mu": model.mu, "sigma": model.sigma, "ordinal": model.mu - 3 * model.sigma},
            )
        # Lock order: side bias, then ratings by pk.
        locked = Rating.objects.select_for_update().filter(user_id__in=user_ids, preset=preset)
        ratings = {row.user_id: row for row in locked.order_by("pk")}
        teams = [
            [model.rating(mu=ratings[u].mu, sigma=ratings[u].sigma) for u in emperor_side]
            + [model.rating(mu=bias.mu, sigma=bias.sigma)],
            [model.rating(mu=ratings[u].mu, sigma=ratings[u].sigma) for u in other_side],
        ]
        ranks = [0, 0] if result == 0 else ([0, 1] if result > 0 else [1, 0])
        rated = model.rate(teams, ranks=ranks)
        changes = []
        sides = ((emperor_side, rated[0], result), (other_side, rated[1], -result))
        for members, new_ratings, side_result in sides:
            for user_id, new in zip(members, new_ratings, strict=False):
                row = ratings[user_id]
                changes.append(
                    RatingChange(
                        game_id=game_id,
                        user_id=user_id,
                        preset=preset,
                        mu_before=row.mu,
                        sigma_before=row.sigma,
                        mu_after=new.mu,
                        sigma_after=new.sigma,
                        result=(side_result > 0) - (side_result < 0),
                    )
                )
                row.mu, row.sigma, row.ordinal = new.mu, new.sigma, new.ordinal()
                row.deals += 1
                row.save(update_fields=["mu", "sigma", "ordinal", "deals", "updated_at"])
        new_bias = rated[0][-1]
        bias.mu, bias.sigma = new_bias.mu, new_bias.sigma
        bias.deals += 1
        bias.save(update_fields=["mu", "sigma", "deals", "updated_at"])
        RatingChange.objects.bulk_create(changes)
    return True
