import secrets
from datetime import datetime, timedelta
from functools import lru_cache

from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework.exceptions import AuthenticationFailed

from accounts import selectors, throttles, token_cache
from accounts.authentication import bearer_key
from accounts.feed import feed_append
from accounts.models import (
    AuthToken,
    ModerationAction,
    ModerationActionKind,
    Rating,
    RatingChange,
    Sanction,
    SanctionKind,
    SideBias,
    TokenKind,
    User,
)
from accounts.permissions import missing_scope_error
from accounts.push import devices
from accounts.scopes import BOT_SCOPES, Scope, scopes_granted
from accounts.usernames import (
    GUEST_PREFIX,
    username_is_reserved,
    username_normalize,
    username_resembles_reserved,
)
from accounts.webhooks.outbox import webhook_enqueue
from infra import wakeups
from infra.api.errors import ApiError, ErrorCode
from infra.timestamps import utc_iso


def token_create(*, user: User, device: str = "") -> str:
    """Issue a new login token and return its key; the key itself is never stored. `device` is the
    name the client gave its device at sign-in (listed by `GET auth/tokens`)."""
    key = AuthToken.new_key()
    AuthToken.objects.create(
        user=user,
        device=device,
        key_hash=AuthToken.hash_key(key),
        expires_at=timezone.now() + selectors.token_ttl(),
    )
    return key


def username_taken_error() -> ApiError:
    return ApiError(
        ErrorCode.INVALID_REQUEST, "That username is taken.", extra={"fields": {"username": ["taken"]}}
    )


def _username_too_similar() -> ApiError:
    # Says neither which user nor which reserved name: the answer is no directory of look-alikes.
    return ApiError(
        ErrorCode.INVALID_REQUEST,
        "That username is too similar to an existing or reserved one.",
        extra={"fields": {"username": ["too similar"]}},
    )


def _username_check_look_alikes(*, username: str) -> None:
    """A new name may not look like another user's or a reserved one (accounts/usernames.py, TR 39
    skeletons): `аdmin` with a Cyrillic `а` beside `admin`, `guеst-x`, `bot-0123456789`."""
    if username_resembles_reserved(username) or selectors.username_looks_taken(username=username):
        raise _username_too_similar()


def password_check_strength(*, password: str, user: User | None = None, field: str = "password") -> None:
    """Django's password validators (AUTH_PASSWORD_VALIDATORS), as `400 invalid_request` on `field`."""
    try:
        validate_password(password, user=user)
    except DjangoValidationError as exc:
        raise ApiError(
            ErrorCode.INVALID_REQUEST, "The password is too weak.",
            extra={"fields": {field: exc.messages}}
        ) from exc


def username_check_new(*, username: str) -> None:
    """The rules a chosen name obeys (registration, a guest's upgrade): not reserved, not taken in
    any spelling, not a look-alike of another user's or a reserved name. `username` is normalised."""
    if username_is_reserved(username):
        raise ApiError(
            ErrorCode.INVALID_REQUEST,
            "Names starting with guest- are kept for guest accounts.",
            extra={"fields": {"username": ["reserved"]}},
        )
    if selectors.user_by_username(username=username) is not None:
        raise username_taken_error()
    _username_check_look_alikes(username=username)


def user_register(*, username: str, password: str, device: str = "") -> tuple[User, str]:
    username = username_normalize(username)
    username_check_new(username=username)
    password_check_strength(password=password)
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password)
            key = token_create(user=user, device=device)
    except IntegrityError as exc:
        # The same name in another case, registered between the check and the insert.
        raise username_taken_error() from exc
    return user, key


def register_refuse_guest(*, authorization: bytes) -> None:
    """`POST auth/register` sent with a guest's token would make a second account and leave the
    guest's games, ratings, seats and tickets behind: it is refused, naming `POST auth/upgrade`,
    which keeps them. Any other `Authorization` header is ignored: registration takes no token."""
    try:
        key = bearer_key(authorization)
    except AuthenticationFailed:
        return
    token = selectors.token_get_active(key=key) if key else None
    if token is not None and token.user.is_guest:
        raise ApiError(
            ErrorCode.INVALID_REQUEST,
            "This is a guest's token: POST auth/upgrade makes this guest a registered player and keeps "
            "his games; registering would make a second account.",
            extra={"upgrade": "/api/v1/auth/upgrade"},
        )


def user_register_guest(*, device: str = "") -> tuple[User, str]:
    username = f"{GUEST_PREFIX}{secrets.token_hex(6)}"
    # A guest's name is the server's; it still may not look like an account's (one made before the
    # look-alike rule could hold `guеst-…`): draw again in that rare case.
    while selectors.username_looks_taken(username=username):
        username = f"{GUEST_PREFIX}{secrets.token_hex(6)}"
    with transaction.atomic():
        user = User(username=username, is_guest=True)
        user.set_unusable_password()
        user.save()
        key = token_create(user=user, device=device)
    return user, key


def token_obtain(*, username: str, password: str, device: str = "") -> str:
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
    return token_create(user=user, device=device)


def token_revoke(*, token) -> None:
    """Revoke the token of a request: ours, or an OAuth access token (django-oauth-toolkit's)."""
    wakeups.publish_access(user_ids=[token.user_id])  # the streams it opened end
    if not isinstance(token, AuthToken):
        token.revoke()
        return
    AuthToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    token_cache.forget([token.key_hash])
    # The phone signed out: it no longer hears of this account (docs/notifications.md "Devices").
    devices.devices_remove_for_tokens(token_ids=[token.pk])


def tokens_revoke_all(*, user: User) -> int:
    """Sign out everywhere: every token of `user` stops working, personal and OAuth ones included.
    Returns how many of ours were active."""
    from oauth2_provider.models import get_access_token_model, get_refresh_token_model

    with transaction.atomic():
        refresh_tokens = get_refresh_token_model().objects.filter(user=user, revoked__isnull=True)
        refresh_tokens.update(revoked=timezone.now())
        get_access_token_model().objects.filter(user=user).delete()
        token_cache.forget_user(user_id=user.pk)
        wakeups.publish_access(user_ids=[user.pk])
        devices.devices_remove_for_user(user_id=user.pk)
        return AuthToken.objects.filter(user=user, revoked_at__isnull=True).update(revoked_at=timezone.now())


def personal_token_create(
    *, user: User, name: str, scopes: list[str], expires_in_days: int | None, granted: frozenset[str]
) -> tuple[AuthToken, str]:
    """Issue a personal access token (docs/integrations.md); returns it and its key (shown once, never
    stored).

    It never gets a scope the request's own token lacks (`granted`), so a narrow token cannot mint a
    wider one, nor a user a scope he may not have (`moderation` is staff's)."""
    unknown = sorted(set(scopes) - set(Scope.values))
    if not scopes or unknown:
        raise ApiError(
            ErrorCode.INVALID_REQUEST,
            f"scopes must be a non-empty list of {', '.join(Scope.values)}.",
            extra={"scopes": [f"unknown: {scope}" for scope in unknown] or ["required"]},
        )
    for scope in sorted(set(scopes)):
        if scope not in granted:
            raise missing_scope_error(scope=scope)
    days = settings.PERSONAL_TOKEN_DEFAULT_DAYS if expires_in_days is None else expires_in_days
    key = AuthToken.new_personal_key()
    token = AuthToken.objects.create(
        user=user,
        kind=TokenKind.PERSONAL,
        name=name,
        prefix=key[: AuthToken.PREFIX_LENGTH],
        scopes=sorted(set(scopes)),
        key_hash=AuthToken.hash_key(key),
        expires_at=timezone.now() + timedelta(days=days),
    )
    return token, key


@transaction.atomic
def personal_token_mint(
    *, user: User, credential, name: str, scopes: list[str], expires_in_days: int | None
) -> tuple[AuthToken, str]:
    """`POST auth/tokens`: a personal access token made with the request's `credential`.

    No credential may yield a longer-lived or broader one (docs/integrations.md "Personal access
    tokens"). A login token stands for the account itself (its password, or the guest identity), so
    only a login token mints; a personal token (whatever its expiry) or an OAuth token (an app's
    hour-long grant) would otherwise outlive itself in what it mints, and its revocation would leave
    the minted token behind. The scopes are still cut to what the credential holds."""
    if not (isinstance(credential, AuthToken) and credential.kind == TokenKind.LOGIN):
        raise ApiError(
            ErrorCode.PERMISSION_DENIED,
            "Personal access tokens are created with a login token (auth/token, auth/register or "
            "auth/guest), not with a personal access token or an OAuth token.",
        )
    # At most PERSONAL_TOKENS_PER_USER that still work; his row locked so that two requests at once
    # cannot both pass the count.
    User.objects.select_for_update().filter(pk=user.pk).values_list("pk").get()
    if len(selectors.personal_tokens(user=user)) >= settings.PERSONAL_TOKENS_PER_USER:
        raise ApiError(
            ErrorCode.TOO_MANY_TOKENS,
            f"You have {settings.PERSONAL_TOKENS_PER_USER} personal access tokens: revoke one first.",
            extra={"limit": settings.PERSONAL_TOKENS_PER_USER},
        )
    return personal_token_create(
        user=user,
        name=name,
        scopes=scopes,
        expires_in_days=expires_in_days,
        granted=scopes_granted(user=user, auth=credential),
    )


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


def _authority_refusal(*, moderator: User, user: User, attempted: str) -> ApiError | None:
    """docs/moderation.md "Who may sanction whom": nobody sanctions himself or revokes a sanction on
    himself; a banned user has no staff power; a superuser may sanction (and revoke for) anyone
    else, other staff only players. The same rule for imposing and revoking: whoever may not impose
    a sanction on someone may not lift one either."""
    if user.pk == moderator.pk:
        if attempted == ModerationActionKind.REVOKE:
            return ApiError(ErrorCode.PERMISSION_DENIED, "Nobody revokes a sanction on himself.")
        return ApiError(ErrorCode.INVALID_REQUEST, "A moderator cannot sanction himself.")
    if selectors.sanction_active(user_id=moderator.pk, kinds=[SanctionKind.BAN]) is not None:
        return ApiError(ErrorCode.PERMISSION_DENIED, "A banned user has no staff power.")
    if moderator.is_superuser:
        return None
    if user.is_superuser:
        return ApiError(ErrorCode.PERMISSION_DENIED, "Only a superuser sanctions a superuser.")
    if user.is_staff:
        return ApiError(ErrorCode.PERMISSION_DENIED, "Only a superuser sanctions staff.")
    return None


def sanction_authority_check(
    *,
    moderator: User,
    user: User,
    attempted: str,
    target_type: str,
    target_id: int,
    reason: str,
    source: str,
    details: dict | None = None,
) -> None:
    """Refuse a sanction or revoke (`attempted`) that `moderator` may not do to `user`, and record
    the refusal in the audit log (`refused`). Call it before the transaction of the action: a
    refusal inside one would roll its own audit entry back."""
    refusal = _authority_refusal(moderator=moderator, user=user, attempted=attempted)
    if refusal is None:
        return
    moderation_action_record(
        moderator=moderator,
        action=ModerationActionKind.REFUSED,
        target_type=target_type,
        target_id=target_id,
        subject_user_id=user.pk,
        reason=reason,
        source=source,
        details={"attempted": attempted, "refusal": refusal.message, **(details or {})},
    )
    raise refusal


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
    # Callers inside a transaction check first (matchmaking.moderation.services.sanction_impose);
    # checked again here, so that no path skips it.
    sanction_authority_check(
        moderator=moderator,
        user=user,
        attempted=ModerationActionKind.SANCTION,
        target_type="user",
        target_id=user.pk,
        reason=reason,
        source=source,
        details={"kind": kind},
    )
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
            details={"kind": kind, "expires_at": utc_iso(expires_at), "report": report_id},
        )
        # The user's feed (docs/matchmaking.md): his client learns of it at once, with when it ends.
        feed_append(
            user_id=user.pk, type="sanction", data={"kind": kind, "expires_at": utc_iso(expires_at)}
        )
        wakeups.publish_access(user_ids=[user.pk])  # a ban ends his open streams
    return sanction


def sanction_revoke(*, sanction_id: int, moderator: User, note: str, source: str) -> Sanction:
    """End a sanction now. Revoking one twice is refused; an expired one may still be revoked (the
    record then says a moderator ended it)."""
    if not note.strip():
        raise ApiError(
            ErrorCode.INVALID_REQUEST, "A note is required.", extra={"fields": {"note": ["required"]}}
        )
    target = Sanction.objects.select_related("user").filter(pk=sanction_id).first()
    if target is None:
        raise ApiError(ErrorCode.NOT_FOUND, "No such sanction.")
    # Before the transaction, so that a refusal stays audited; whose sanction it is never changes.
    sanction_authority_check(
        moderator=moderator,
        user=target.user,
        attempted=ModerationActionKind.REVOKE,
        target_type="sanction",
        target_id=target.pk,
        reason=note,
        source=source,
        details={"kind": target.kind},
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
        webhook_enqueue(event="rating.changed", data=rating_changed_data(game_id=game_id, preset=preset, changes=changes), user_ids=user_ids)  # noqa: E501
    return True


def rating_changed_data(*, game_id: int, preset: str, changes: list[RatingChange]) -> dict:
    """The `rating.changed` webhook's data: one deal's effect on each of its players."""
    fields = ("mu_before", "sigma_before", "mu_after", "sigma_after", "result")
    return {
        "game": game_id,
        "preset": preset,
        "changes": [
            {"user": change.user_id, **{name: getattr(change, name) for name in fields}} for change in changes
        ],
    }


def bot_register(*, username: str, owner: User) -> tuple[User, str]:
    """An integrator's bot account (docs/integrations.md), created by staff for `owner`: it has no password
    and plays with the personal token returned here (scopes read, play, tables), like any player."""
    username = username_normalize(username)
    if username_is_reserved(username) or selectors.user_by_username(username=username) is not None:
        raise username_taken_error()
    _username_check_look_alikes(username=username)
    if owner.is_bot:
        raise ApiError(ErrorCode.INVALID_REQUEST, "A bot cannot own bots.", extra={"owner": ["is a bot"]})
    try:
        with transaction.atomic():
            user = User(username=username, is_bot=True, bot_owner=owner)
            user.set_unusable_password()
            user.save()
            _, key = personal_token_create(
                user=user,
                name="bot",
                scopes=sorted(BOT_SCOPES),
                expires_in_days=settings.PERSONAL_TOKEN_MAX_DAYS,
                granted=BOT_SCOPES,
            )
    except IntegrityError as exc:
        raise username_taken_error() from exc
    return user, key
