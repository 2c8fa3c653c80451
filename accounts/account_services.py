"""A player's account over its life (docs/client-guide.md "Accounts"): a guest upgraded in place, a
password changed, one session revoked, the account deleted.

The three writes that act on the account itself (upgrade, password, deletion) take a login token
only: like minting a personal token (accounts/services.py `personal_token_mint`), they are the
account's own acts, which no integration's token (personal or OAuth) may do for it. Every password
they check counts toward the one sign-in lock-out (accounts/throttles.py), as `POST auth/token` and
the pages of accounts/oauth_login.py do: no endpoint is a way around it.
"""

import secrets

from auditlog.context import disable_auditlog
from auditlog.models import LogEntry
from django.db import IntegrityError, transaction
from django.utils import timezone
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_grant_model,
    get_refresh_token_model,
)

from accounts import account_hooks, services, throttles, token_cache
from accounts.models import (
    AuthToken,
    FeedEvent,
    ModerationActionKind,
    Rating,
    TokenKind,
    User,
)
from accounts.push import devices
from accounts.push import services as push_services
from accounts.usernames import DELETED_PREFIX, username_key, username_normalize
from accounts.webhooks.models import Webhook
from infra import wakeups
from infra.api.errors import ApiError, ErrorCode


def login_token_require(*, credential, act: str) -> None:
    """`403 permission_denied` unless the request carries a login token (see the module's docstring)."""
    if not (isinstance(credential, AuthToken) and credential.kind == TokenKind.LOGIN):
        raise ApiError(
            ErrorCode.PERMISSION_DENIED,
            f"Only a login token (auth/token, auth/register, auth/guest) may {act}; not a personal "
            "access token or an OAuth token.",
        )


def _password_confirm(*, user: User, password: str, field: str) -> None:
    """The account's password, checked under its lock-out: refused unchecked while locked (`429
    throttled`), a wrong one counted (`400 invalid_request` on `field`: the token is fine, so not
    401, which a client takes for "signed out"), a right one clearing the count."""
    username = user.get_username()
    throttles.login_failures_check(username=username)
    if not user.check_password(password):
        throttles.login_failure_record(username=username)
        raise ApiError(
            ErrorCode.INVALID_REQUEST, "Wrong password.", extra={"fields": {field: ["wrong password"]}}
        )
    throttles.login_failures_clear(username=username)


def account_upgrade(
    *, user: User, credential, username: str, password: str, device: str | None = None
) -> tuple[User, str]:
    """`POST auth/upgrade`: the guest becomes a registered player in place. His id, and with it his
    games, ratings, seats, tickets, feed and personal tokens, stay his; he gets a name (the rules of
    `POST auth/register`) and a password. The guest's login token is revoked and a new one returned
    (with the same device name unless `device` is given): the guest token was the account's only
    secret, and whoever held it need not keep the registered account."""
    login_token_require(credential=credential, act="upgrade a guest")
    if not user.is_guest:
        raise ApiError(
            ErrorCode.INVALID_REQUEST, "This account is registered already: sign in with its password."
        )
    username = username_normalize(username)
    services.username_check_new(username=username)
    services.password_check_strength(password=password, user=user)
    try:
        with transaction.atomic():
            locked = User.objects.select_for_update().get(pk=user.pk)
            if not locked.is_guest:  # another request upgraded it meanwhile
                raise ApiError(
                    ErrorCode.INVALID_REQUEST,
                    "This account is registered already: sign in with its password.",
                )
            revoked = AuthToken.objects.filter(pk=credential.pk, revoked_at__isnull=True)
            if not revoked.update(revoked_at=timezone.now()):
                raise ApiError(ErrorCode.NOT_AUTHENTICATED, "Invalid, expired or revoked token.")
            token_cache.forget([credential.key_hash])
            locked.username = username
            locked.is_guest = False
            locked.set_password(password)
            locked.save(
                update_fields=["username", "username_key", "username_skeleton", "is_guest", "password"]
            )
            key = services.token_create(user=locked, device=credential.device if device is None else device)
    except IntegrityError as exc:
        # The same name in another spelling, taken between the check and the update.
        raise services.username_taken_error() from exc
    wakeups.publish_access(user_ids=[user.pk])  # the streams the guest token opened end
    return locked, key


def password_change(*, user: User, credential, old_password: str, new_password: str) -> int:
    """`POST me/password`. The login tokens of the user's other devices are revoked (whoever signed
    in with the old password is signed out); the token of this request stays. Personal access
    tokens and OAuth apps' tokens stay too: each is a grant the player made to an integration, with
    its own scopes, listed and revoked one by one (`GET`/`DELETE auth/tokens`), and `auth/logout-all`
    ends them all. Returns how many login tokens were revoked."""
    login_token_require(credential=credential, act="change the password")
    if not user.has_usable_password():
        raise ApiError(
            ErrorCode.INVALID_REQUEST,
            "A guest has no password: POST auth/upgrade gives the account a name and a password.",
        )
    # The new password's strength first: a weak one is refused without a password being checked.
    services.password_check_strength(password=new_password, user=user, field="new_password")
    _password_confirm(user=user, password=old_password, field="old_password")
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        locked.set_password(new_password)
        locked.save(update_fields=["password"])
        others = AuthToken.objects.filter(user=locked, kind=TokenKind.LOGIN, revoked_at__isnull=True).exclude(
            pk=credential.pk
        )
        token_cache.forget(others.values_list("key_hash", flat=True))
        revoked = others.update(revoked_at=timezone.now())
    wakeups.publish_access(user_ids=[user.pk])  # the streams of the revoked tokens end
    return revoked


def session_revoke(*, user: User, token_id: int) -> None:
    """`DELETE auth/tokens/{id}`: one of the user's tokens, a login token (a lost phone's session) or
    a personal access token, stops working at once; his other sessions stay."""
    tokens = AuthToken.objects.filter(pk=token_id, user=user, revoked_at__isnull=True)
    token_cache.forget(tokens.values_list("key_hash", flat=True))
    if not tokens.update(revoked_at=timezone.now()):
        raise ApiError(ErrorCode.NOT_FOUND, "No such token.")
    devices.devices_remove_for_tokens(token_ids=[token_id])  # that phone signed out
    wakeups.publish_access(user_ids=[user.pk])


def account_delete(*, user: User, credential, password: str | None) -> None:
    """`DELETE me` (docs/client-guide.md "Your data"). Confirmed by the account's password; a guest,
    who has none, by his login token alone (it is the whole of his account). The integrator's bot
    accounts the user owns are deleted with it: nobody would be left to answer for them."""
    login_token_require(credential=credential, act="delete the account")
    if user.has_usable_password():
        if not password:
            raise ApiError(
                ErrorCode.INVALID_REQUEST,
                "The account's password is required.",
                extra={"fields": {"password": ["required"]}},
            )
        _password_confirm(user=user, password=password, field="password")
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        for bot in User.objects.filter(bot_owner=locked, is_active=True).order_by("pk"):
            _account_erase(account=bot, by=locked, reason="Its owner deleted his account.")
        _account_erase(account=locked, by=locked, reason="The player deleted his account.")


def _tombstone(*, user_id: int) -> str:
    name = f"{DELETED_PREFIX}{user_id}"
    # A name chosen before the prefix was reserved may hold it: the tombstone then takes a suffix.
    while User.objects.filter(username_key=username_key(name)).exclude(pk=user_id).exists():
        name = f"{DELETED_PREFIX}{user_id}-{secrets.token_hex(3)}"
    return name


def _account_erase(*, account: User, by: User, reason: str) -> None:
    """Inside the deletion's transaction. What is erased and what is kept, and why: docs/client-
    guide.md "Your data" and docs/security.md."""
    # No credential works any more: ours (login and personal), OAuth tokens, grants and the apps he
    # registered (their secrets were his).
    token_cache.forget_user(user_id=account.pk)
    AuthToken.objects.filter(user=account).delete()
    get_access_token_model().objects.filter(user=account).delete()
    get_refresh_token_model().objects.filter(user=account).delete()
    get_grant_model().objects.filter(user=account).delete()
    get_application_model().objects.filter(user=account).delete()
    was = {"guest": account.is_guest, "bot": account.is_bot, "staff": account.is_staff}
    # The row stays (games, penalties, reports and sanctions name it by id) under a tombstone that
    # frees the name; the model history (django-auditlog) would copy the old name into a new entry,
    # so this save is not recorded and the user's earlier entries, which repeat it, are erased.
    with disable_auditlog():
        account.username = _tombstone(user_id=account.pk)
        account.email = account.first_name = account.last_name = ""
        account.set_unusable_password()
        account.is_active = account.is_staff = account.is_superuser = False
        account.last_login = None
        account.save()
        account.groups.clear()
        account.user_permissions.clear()
    LogEntry.objects.get_for_object(account).delete()
    # Seats, tickets, games' records (matchmaking and games, accounts/account_hooks.py).
    account_hooks.account_erase_run(user_id=account.pk)
    # After the hooks: leaving a table may still append to his feed.
    FeedEvent.objects.filter(user=account).delete()
    # His phones hear nothing more; his inbox and preferences go with his feed.
    push_services.account_push_erase(user_id=account.pk)
    Webhook.objects.filter(owner=account).delete()
    Rating.objects.filter(user=account).delete()
    services.moderation_action_record(
        moderator=by,
        action=ModerationActionKind.ACCOUNT_DELETE,
        target_type="user",
        target_id=account.pk,
        subject_user_id=account.pk,
        reason=reason,
        source="api",
        details={"was": was, "tombstone": account.username},
    )
    wakeups.publish_access(user_ids=[account.pk])
