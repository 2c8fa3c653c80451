from accounts.models import AuthToken


def token_get_active(*, key: str) -> AuthToken | None:
    return (
        AuthToken.objects.select_related("user")
        .filter(key_hash=AuthToken.hash_key(key), revoked_at__isnull=True)
        .first()
    )
