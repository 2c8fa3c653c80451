import secrets

from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import AuthToken, User
from config.api.errors import ApiError, ErrorCode


def token_create(*, user: User) -> str:
    """Issue a new token and return its key; the key itself is never stored."""
    key = AuthToken.new_key()
    AuthToken.objects.create(user=user, key_hash=AuthToken.hash_key(key))
    return key


def user_register(*, username: str, password: str) -> tuple[User, str]:
    try:
        validate_password(password)
    except DjangoValidationError as exc:
        raise ApiError(
            ErrorCode.INVALID_REQUEST, "The password is too weak.", extra={"password": exc.messages}
        ) from exc
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password)
            key = token_create(user=user)
    except IntegrityError as exc:
        raise ApiError(
            ErrorCode.INVALID_REQUEST, "That username is taken.", extra={"username": ["taken"]}
        ) from exc
    return user, key


def user_register_guest() -> tuple[User, str]:
    with transaction.atomic():
        user = User(username=f"guest-{secrets.token_hex(6)}", is_guest=True)
        user.set_unusable_password()
        user.save()
        key = token_create(user=user)
    return user, key


def token_obtain(*, username: str, password: str) -> str:
    user = authenticate(username=username, password=password)
    if user is None:
        raise ApiError(ErrorCode.NOT_AUTHENTICATED, "Wrong username or password.")
    if user.banned:
        raise ApiError(ErrorCode.PERMISSION_DENIED, "This account is banned.")
    return token_create(user=user)


def token_revoke(*, token: AuthToken) -> None:
    AuthToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())


def user_set_banned(*, user: User, banned: bool) -> None:
    User.objects.filter(pk=user.pk).update(banned=banned)
