"""Bearer-token lookups kept in the shared cache for minutes (docs/scaling.md "Where the time goes").

Every request used to spend one SQL query (token, user, active ban) before doing its own work: a
third of a move's CPU. The looked-up token, with its user and whether a ban was active, is kept
under the token's hash for AUTH_TOKEN_CACHE_SECONDS (less a random quarter at most, so that the
tokens of clients who all came back at once, after a restart, are not all looked up again in the
same second), and forgotten the moment anything it answers for changes: a token revoked (one or
all), a sanction imposed or revoked, the user edited. Each change forgets at once and again after
its transaction commits, so a request running in between cannot put the old answer back for longer
than that transaction.

What needs no forgetting: expiry (checked on every use against the cached `expires_at`), a ban
that ends by time (a cached active ban makes the permission re-read the sanctions, accounts/
permissions.py), the sliding expiry and last-use writes (due ones bypass the cache).

Only a cache that every process shares may hold these (Redis); the default is therefore off
without REDIS_URL (config/settings/base.py). In front of it, each process keeps a short memo that
every forget reaches over Redis too (accounts/token_memo.py).

Redis is an accelerator here, never a dependency: with it down a lookup goes to the database, and
a forget that cannot reach it is kept by this process and sent again before its next use of the
cache (`_forgets_retry`); until then this process does not trust the cache for those tokens. (A
token revoked while Redis was down and read by another process from an entry cached before the
outage is the one gap: it closes when the revoking process next touches the cache, at the latest
after AUTH_TOKEN_CACHE_SECONDS. docs/deploy.md "What happens when …".)
"""

import logging
import random
import threading
from collections.abc import Iterable

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

from accounts import token_memo
from infra import wakeups

_PREFIX = "authtoken:"

logger = logging.getLogger(__name__)

# Forgets that could not reach the shared cache (Redis down), sent again before its next use.
_unsent: set[str] = set()
_unsent_lock = threading.Lock()


def _forgets_retry() -> bool:
    """Send the forgets Redis missed; True when none is left."""
    if not _unsent:
        return True
    with _unsent_lock:
        keys = sorted(_unsent)
        try:
            cache.delete_many([_PREFIX + key_hash for key_hash in keys])
        except Exception:  # noqa: BLE001 - still down: keep them
            return False
        _unsent.difference_update(keys)
    return True


def _enabled() -> bool:
    return settings.AUTH_TOKEN_CACHE_SECONDS > 0


def cached(*, key_hash: str):
    """The token remembered under this hash (its user loaded, `user.active_ban_id` set), or None:
    from this process's memo (accounts/token_memo.py) if it holds it, else from the shared cache."""
    if not _enabled():
        return None
    if not _forgets_retry() or key_hash in _unsent:
        return None
    token = token_memo.recall(key_hash)
    if token is None:
        since = token_memo.generation()
        try:
            token = cache.get(_PREFIX + key_hash)
        except Exception:  # noqa: BLE001 - Redis down: the database answers
            logger.warning("token cache unavailable; looking the token up in the database", exc_info=True)
            return None
        if token is not None:
            token_memo.keep(key_hash, token, since=since)
    return token


def remember(token) -> None:
    if _enabled() and _forgets_retry() and token.key_hash not in _unsent:
        seconds = settings.AUTH_TOKEN_CACHE_SECONDS
        try:
            cache.set(_PREFIX + token.key_hash, token, timeout=seconds - random.uniform(0, seconds / 4))
        except Exception:  # noqa: BLE001 - Redis down: nothing is kept
            logger.warning("token cache unavailable; not kept", exc_info=True)


def forget(key_hashes: Iterable[str]) -> None:
    """Forget these tokens now and once the current transaction commits."""
    if not _enabled():
        return
    key_hashes = list(key_hashes)
    if not key_hashes:
        return
    def send() -> None:
        try:
            cache.delete_many([_PREFIX + key_hash for key_hash in key_hashes])
        except Exception:  # noqa: BLE001 - Redis down: sent again before the next use of the cache
            logger.warning("token cache unavailable; forget kept for later", exc_info=True)
            with _unsent_lock:
                _unsent.update(key_hashes)
        token_memo.forget_everywhere(key_hashes)

    send()
    transaction.on_commit(send)


def forget_user(*, user_id: int) -> None:
    """Forget every token of the user: his sanctions or his account changed."""
    if not _enabled():
        return
    from accounts.models import AuthToken

    forget(AuthToken.objects.filter(user_id=user_id).values_list("key_hash", flat=True))


def _forget_on_save(sender, instance, **kwargs) -> None:
    # A sanction imposed or revoked (API, admin, shell), a user edited (deactivated, made staff),
    # a token changed in the admin: what the cached lookups answered may be different now, and the
    # user's open streams check his rights again (infra/wakeups.py `publish_access`).
    user_id = instance.pk if sender.__name__ == "User" else instance.user_id
    forget_user(user_id=user_id)
    wakeups.publish_access(user_ids=[user_id])


def _oauth_token_gone(sender, instance, **kwargs) -> None:
    # An OAuth access token revoked (django-oauth-toolkit deletes it, /o/revoke_token/ or the app's
    # deletion): the streams it opened end.
    wakeups.publish_access(user_ids=[instance.user_id])


def connect_signals() -> None:
    """Called once from AccountsConfig.ready. Bulk `.update()`s bypass signals: the services that
    revoke tokens that way call `forget` and `publish_access` themselves."""
    from django.contrib.auth import get_user_model
    from django.db.models.signals import post_delete, post_save
    from oauth2_provider.models import get_access_token_model

    from accounts.models import AuthToken, Sanction

    for model in (get_user_model(), Sanction, AuthToken):
        post_save.connect(_forget_on_save, sender=model, dispatch_uid=f"token_cache_{model.__name__}")
        post_delete.connect(_forget_on_save, sender=model, dispatch_uid=f"token_cache_del_{model.__name__}")
    post_delete.connect(_oauth_token_gone, sender=get_access_token_model(), dispatch_uid="token_cache_oauth")
