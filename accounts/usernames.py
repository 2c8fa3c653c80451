"""What makes two usernames the same, and which ones a player may not choose.

Usernames are stored NFKC-normalised (so `ａｌｉｃｅ`, fullwidth, is `alice`) and compared in one
form only, `username_key`: every lookup (sign-in, registration, bot accounts), the database's unique
constraint, and the sign-in lock-out and its counters use it, so that no spelling of a name reaches
an account its lock-out does not cover. The `guest-` prefix belongs to the accounts made by
`auth/guest`, so that no permanent name can pass for a guest.

Names that only *look* the same are told apart by their Unicode TR 39 skeleton, `username_skeleton`
(ICU's SpoofChecker): `аdmin` with a Cyrillic `а`, `guеst-x` with a Cyrillic `е`. A new name whose
skeleton is another user's, or looks like a reserved name (the `guest-` prefix, the server bots'
`bot-` and ten hex digits, matchmaking/bots.py), is refused (docs/security.md).
"""

import re
import string
import unicodedata
from functools import lru_cache

import icu

GUEST_PREFIX = "guest-"
# The server's seat-filling bots are named `bot-` and ten hex digits (matchmaking/bots.py, which
# depends on accounts, not the other way round).
BOT_PREFIX = "bot-"
BOT_HEX_DIGITS = 10
# A deleted account keeps its row under `deleted-<id>` (accounts/account_services.py): the prefix is
# nobody's to choose, so that no player passes for a deleted one, nor takes the name a tombstone needs.
DELETED_PREFIX = "deleted-"


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


@lru_cache(maxsize=1)
def _spoof_checker() -> icu.SpoofChecker:
    # Only read after it is made, which ICU allows from any number of threads at once.
    return icu.SpoofChecker()


def username_skeleton(username: str) -> str:
    """The name as shown, as TR 39 sees it: two names look alike when their skeletons are equal. Taken
    before case folding, so that a capital `I` is the `l` it looks like (`AIice` is `Alice`), then
    folded and taken again, so that case does not tell two look-alikes apart (`аlice`, Cyrillic `а`,
    looks like `alice`, the same account as `Alice`). For comparing only, never shown."""
    checker = _spoof_checker()
    skeleton = checker.getSkeleton(0, username_normalize(username))
    return checker.getSkeleton(0, unicodedata.normalize("NFKC", skeleton.casefold()))


def username_skeletons(username: str) -> frozenset[str]:
    """The skeletons a new name is compared with the stored ones under: of the name as typed and of
    its compared form (`username_key`), so that `ADMІN` (Cyrillic `І`) meets `Admin`, whose
    name it is in another case."""
    return frozenset({username_skeleton(username), username_skeleton(username_key(username))})


@lru_cache(maxsize=1)
def _reserved_patterns() -> tuple[tuple[str, ...], re.Pattern]:
    """The skeletons of the reserved names: the guest and deleted-account prefixes, and the bots' name
    as a pattern over the skeletons of its hex digits (`0` looks like `o`, `1` like `l`)."""
    digits = sorted({username_skeleton(digit) for digit in string.hexdigits})
    digit = "|".join(map(re.escape, digits))
    bot_name = re.compile(f"{re.escape(username_skeleton(BOT_PREFIX))}(?:{digit}){{{BOT_HEX_DIGITS}}}")
    return (username_skeleton(GUEST_PREFIX), username_skeleton(DELETED_PREFIX)), bot_name


def username_resembles_reserved(username: str) -> bool:
    """Whether the name is, or looks like, a guest's, a deleted account's or a server bot's."""
    prefixes, bot_name = _reserved_patterns()
    return any(
        skeleton.startswith(prefixes) or bot_name.fullmatch(skeleton) is not None
        for skeleton in username_skeletons(username)
    )
