"""Who reads: the bearer token, looked up and checked as the API's GET views do.

`reader_of` runs the same steps in the same order as DRF does for those views: the token
(accounts/authentication.py `bearer_credential`, with its cache and OAuth tokens), then the ban and
the `read` scope (accounts/permissions.py `reader_check`). Its exceptions are DRF's and ours, and
become the same error bodies (events/responses.py). Synchronous: it runs in a worker thread.
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rest_framework import exceptions

from accounts.authentication import bearer_credential, bearer_key
from accounts.permissions import reader_check


@dataclass(frozen=True)
class Reader:
    user: Any
    token: Any  # our AuthToken, or an OAuth AccessToken

    @property
    def expires_at(self) -> datetime | None:
        """When the token stops working unless it is used (a login token's expiry slides with use,
        so reaching it means "look again", not "end")."""
        return getattr(self.token, "expires_at", None) or getattr(self.token, "expires", None)


def reader_of(authorization: bytes) -> Reader:
    """The reader an `Authorization` header names, or the exception that refuses him."""
    key = bearer_key(authorization)
    if key is None:
        raise exceptions.NotAuthenticated()
    credential = bearer_credential(key)
    reader_check(user=credential.user, auth=credential.token)
    return Reader(user=credential.user, token=credential.token)
