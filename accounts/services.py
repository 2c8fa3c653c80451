import secrets
from functools import lru_cache

from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import AuthToken, Rating, RatingChange, SideBias, User
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
