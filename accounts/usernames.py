"""What makes two usernames the same, and which ones a player may not choose.

Usernames are stored NFKC-normalised (so `ａｌｉｃｅ`, fullwidth, is `alice`) and are unique regardless
of case (the `user_username_ci` constraint on lower(username)). The `guest-` prefix belongs to the
accounts made by `auth/guest`, so that no permanent name can pass for a guest.
"""

import unicodedata

GUEST_PREFIX = "guest-"


def username_normalize(username: str) -> str:
    return unicodedata.normalize("NFKC", username)


def username_is_reserved(username: str) -> bool:
    return username_normalize(username).casefold().startswith(GUEST_PREFIX)
