"""Who is watching: a user with an open stream or a waiting long-poll on the event server has his app
in the foreground, and a `your_turn` push would only buzz a phone he is looking at
(docs/notifications.md "What is pushed").

The event server marks it (events/presence.py): one Redis hash per watching user, a field per
event-server process holding until when that process vouches for him (refreshed while he watches,
removed when his last stream or long-poll there ends). The worker reads it here. Redis is an
accelerator only: without it, or when it fails, nobody counts as watching and `your_turn` is pushed.
"""

import logging
import time

from django.conf import settings

from infra import wakeups

logger = logging.getLogger(__name__)


def presence_key(user_id: int) -> str:
    return f"{wakeups.channel_prefix()}presence:{user_id}"


def watching(*, user_id: int) -> bool:
    if not settings.REDIS_URL:
        return False
    try:
        marks = wakeups.redis_client().hvals(presence_key(user_id))
    except Exception:  # noqa: BLE001 - unknown: push (a buzz too many beats a missed turn)
        logger.warning("presence of user %s not read", user_id, exc_info=True)
        return False
    now = time.time()
    return any(float(until) > now for until in marks)
