"""The pool of bot users (docs/matchmaking.md "Bots") the matcher seats in empty seats.

A bot is an ordinary user with `is_bot` and no usable password, so it can never log in; its seat
plays from the worker (games.services.game_bots_act). The pool grows on demand and a bot sits at
one open table at a time, so every table gets distinct bots.
"""

import secrets
from collections.abc import Iterable

from django.contrib.auth import get_user_model

from accounts.usernames import BOT_HEX_DIGITS, BOT_PREFIX
from matchmaking.models import Seat, TableStatus


def bot_user_create() -> object:
    user = get_user_model()(username=f"{BOT_PREFIX}{secrets.token_hex(BOT_HEX_DIGITS // 2)}", is_bot=True)
    user.set_unusable_password()
    user.save()
    return user


def bot_users_take(*, count: int, exclude: Iterable[int] = ()) -> list:
    """`count` distinct bots seated at no open table and not among `exclude` (users the caller seats
    itself: a tournament's entrants may be bot accounts), locked for the caller's transaction.

    `skip_locked`: a bot another matcher run is seating right now is not free, and waiting for it
    would only serialise the runs. Missing bots are created.
    """
    if count <= 0:
        return []
    busy = Seat.objects.filter(table__status__in=[TableStatus.WAITING, TableStatus.PLAYING]).values("user_id")
    free = list(
        get_user_model()
        .objects.select_for_update(skip_locked=True)
        .filter(is_bot=True)
        .exclude(pk__in=busy)
        .exclude(pk__in=list(exclude))
        .order_by("pk")[:count]
    )
    while len(free) < count:
        free.append(bot_user_create())
    return free
