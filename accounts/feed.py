"""A user's feed (CONTRACT §5 "Your feed"): one ordered log per user of what is addressed to him
(`ticket_matched`, `deal_started`, `your_turn`, `sanction`), followed by one long-poll or SSE stream.

Appended inside the transaction of the change that causes it (an outbox row, ARCHITECTURE.md), so a
client never learns of a change that was rolled back and never misses one that committed. Numbering
takes the row lock of the user's FeedCursor: callers lock their own rows (game, table) first, and this
one last, so feed appends never deadlock with each other. After commit, waiters get the seq only.
"""

from django.db import transaction
from django.db.models import F

from accounts.models import FeedCursor, FeedEvent
from config import wakeups

# Entries older than this many per user are pruned as new ones arrive: the feed is for following
# what happens now; history has its own endpoints.
FEED_KEEP = 500


def feed_append(*, user_id: int, type: str, data: dict) -> int:
    """Append one entry to `user_id`'s feed; returns its seq."""
    # (ignore_conflicts: two first appends at once must not abort either transaction.)
    FeedCursor.objects.bulk_create([FeedCursor(user_id=user_id)], ignore_conflicts=True)
    FeedCursor.objects.filter(user_id=user_id).update(last_seq=F("last_seq") + 1)
    seq = FeedCursor.objects.filter(user_id=user_id).values_list("last_seq", flat=True).get()
    FeedEvent.objects.create(user_id=user_id, seq=seq, type=type, data={"type": type, **data})
    if seq > FEED_KEEP and seq % 50 == 0:
        FeedEvent.objects.filter(user_id=user_id, seq__lte=seq - FEED_KEEP).delete()
    transaction.on_commit(lambda: wakeups.publish_user(user_id=user_id, seq=seq))
    return seq


def feed_read(*, user_id: int, after: int, limit: int = 200) -> dict:
    """Entries after `after`, oldest first; `last_seq` is what to pass as `after` next time."""
    rows = list(
        FeedEvent.objects.filter(user_id=user_id, seq__gt=after)
        .order_by("seq")
        .values_list("seq", "data")[:limit]
    )
    if len(rows) == limit:
        last_seq = rows[-1][0]
    else:
        newest = FeedCursor.objects.filter(user_id=user_id).values_list("last_seq", flat=True).first()
        last_seq = max(after, newest or 0)
    return {"events": [{**data, "seq": seq} for seq, data in rows], "last_seq": last_seq}


def feed_changed(*, user_id: int, after: int) -> bool:
    return FeedCursor.objects.filter(user_id=user_id, last_seq__gt=after).exists()
