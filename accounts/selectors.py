from accounts.models import AuthToken, Rating, RatingChange, User
from config.api.errors import ApiError, ErrorCode


def token_get_active(*, key: str) -> AuthToken | None:
    return (
        AuthToken.objects.select_related("user")
        .filter(key_hash=AuthToken.hash_key(key), revoked_at__isnull=True)
        .first()
    )


def rating_leaderboard(*, preset: str, limit: int = 100) -> list[Rating]:
    """The preset's players by ordinal (mu - 3 sigma), best first."""
    return list(
        Rating.objects.filter(preset=preset).select_related("user").order_by("-ordinal", "user_id")[:limit]
    )


def user_ratings(*, user_id: int, history: int = 50) -> list[dict]:
    """Each preset's rating of a user with its latest changes, newest first."""
    if not User.objects.filter(pk=user_id).exists():
        raise ApiError(ErrorCode.NOT_FOUND, "No such user.")
    result = []
    for rating in Rating.objects.filter(user_id=user_id).order_by("preset"):
        changes = list(
            RatingChange.objects.filter(user_id=user_id, preset=rating.preset).order_by("-created_at", "-id")[
                :history
            ]
        )
        result.append({"rating": rating, "history": changes})
    return result
