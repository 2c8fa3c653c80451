"""Rate limits of the sign-in endpoints: per client address, and failed logins per account.

The address is the socket's (`REMOTE_ADDR`) unless NUM_PROXIES trusted proxies stand in front, in
which case it is the one they appended to `X-Forwarded-For` (DRF's get_ident): a client cannot pick
its own address by sending that header. Counters live in the default cache, which is Redis in
production (REDIS_URL) so that every web process shares them. While Redis is down each process
counts on its own (`_Counters`): the limits hold per process, not per deployment, rather than
failing every request or none (docs/deploy.md "What happens when …").
"""

import hashlib
import logging
import time

from django.conf import settings
from django.core.cache import cache, caches
from rest_framework.exceptions import Throttled
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from accounts.usernames import username_key

logger = logging.getLogger(__name__)


class _Counters:
    """The shared cache's get/set/add/incr/delete_many, or this process's own memory while the
    shared cache cannot be reached."""

    def _call(self, name: str, *args, **kwargs):
        try:
            return getattr(cache, name)(*args, **kwargs)
        except ValueError:
            raise  # incr of a missing key: the caller's to handle
        except Exception:  # noqa: BLE001 - Redis down: count in this process
            logger.warning("shared cache unavailable; counting in this process", exc_info=True)
            return getattr(caches["local"], name)(*args, **kwargs)

    def get(self, key, default=None):
        return self._call("get", key, default)

    def set(self, key, value, timeout=None):
        return self._call("set", key, value, timeout)

    def add(self, key, value, timeout=None):
        return self._call("add", key, value, timeout)

    def incr(self, key):
        return self._call("incr", key)

    def delete_many(self, keys):
        return self._call("delete_many", keys)


counters = _Counters()


class AddressRateThrottle(SimpleRateThrottle):
    """DRF's scoped throttle keyed on the client address; the rate is read when the request comes
    (DRF's own reads it once at import, so a changed setting would not apply)."""

    scope = ""
    cache = counters

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class UserScopedRateThrottle(SimpleRateThrottle):
    """DRF's scoped throttle keyed on the signed-in user, whichever of his tokens he sends, in the
    same counters and with the rate read as AddressRateThrottle reads it; staff are not throttled
    (they prepare tournaments in bulk)."""

    scope = ""
    cache = counters

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_cache_key(self, request, view):
        if request.user.is_staff:
            return None  # DRF: no key, no throttle
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class AuthAddressThrottle(AddressRateThrottle):
    """register, token and guest together, per address."""

    scope = "auth"


class GuestAddressThrottle(AddressRateThrottle):
    """New guest accounts per address (each is a row, and a fresh identity for the lobby)."""

    scope = "guest"


def _failure_keys(username: str) -> tuple[str, str]:
    # Keyed on the name's compared form: every spelling that signs in to an account counts against it.
    digest = hashlib.sha256(username_key(username).encode()).hexdigest()[:32]
    return f"login-failures:{digest}:count", f"login-failures:{digest}:since"


def login_failures_check(*, username: str) -> None:
    """Refuse a login attempt for an account with LOGIN_FAILURES_MAX failures in the current
    window, before the password is checked (a locked account answers nothing about the password)."""
    count_key, since_key = _failure_keys(username)
    if (counters.get(count_key) or 0) < settings.LOGIN_FAILURES_MAX:
        return
    window = settings.LOGIN_FAILURES_WINDOW_SECONDS
    since = counters.get(since_key) or time.time()
    raise Throttled(wait=max(1.0, since + window - time.time()))


def login_failure_record(*, username: str) -> None:
    count_key, since_key = _failure_keys(username)
    window = settings.LOGIN_FAILURES_WINDOW_SECONDS
    if counters.add(since_key, time.time(), timeout=window):
        counters.set(count_key, 1, timeout=window)
        return
    try:
        counters.incr(count_key)
    except ValueError:  # the count expired between the two keys
        counters.set(count_key, 1, timeout=window)


def login_failures_clear(*, username: str) -> None:
    counters.delete_many(list(_failure_keys(username)))
