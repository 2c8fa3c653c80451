"""What makes two usernames the same, and which ones a player may not choose.

Usernames are stored NFKC-normalised (so `ａｌｉｃｅ`, fullwidth, is `alice`) and compared in one
form only, `username_key`: every lookup (sign-in, registration, bot accounts), the database's unique
constraint, and the sign-in lock-out and its counters use it, so that no spelling of a name reaches
an account its lock-out does not cover. The `guest-` prefix belongs to the accounts made by
`auth/guest`, so that no permanent name can pass for a guest.
"""

import unicodedata

GUEST_PREFIX = "guest-"


def username_normalize(username: str) -> str:
    return unicodedata.normalize("NFKC", username)


def username_key(username: str) -> str:
    """The form in which two usernames are the same: NFKC, Unicode full case folding, NFKC again
    (caseless matching of identifiers, Unicode's NFKC_Casefold). `Alice`, `ALICE` and `ａｌｉｃｅ` are
    one name; `İ` (U+0130) folds to `i̇`, not to `i`, so `HX_OUTSİDER` is not `hx_outsider`. The
    database never folds a name itself: its `lower()` depends on its locale (PostgreSQL's folds `İ`
    to `i`, SQLite's only ASCII)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", username).casefold())


def username_is_reserved(username: str) -> bool:
    return username_key(username).startswith(GUEST_PREFIX)
