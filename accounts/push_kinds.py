"""Which feed entries reach a phone (docs/notifications.md "What is pushed"): one row per kind.

A feed entry kind becomes pushable by a row here, nothing else: the worker reads each user's new
entries from his feed and pushes those of the kinds below (accounts/push/delivery.py); the feed
hands it only the entries of these kinds (accounts/feed.py).

A push carries the entry's kind, seq and the ids listed in `fields` (what the app opens), never the
rest of the entry: a `your_turn` entry lists the reader's legal actions, which spell out his hand.
"""

from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class Kind:
    title: str
    body: str
    fields: tuple[str, ...]  # the entry's fields the push carries (ids only)
    high: bool  # APNs priority 10 / FCM high / Web Push Urgency: high, else the power-saving one
    inbox: bool = False  # also kept in the user's inbox (GET me/inbox)
    default: bool = True  # on unless the user turns it off (PATCH me/notifications)
    collapse_per_game: bool = False  # a newer one replaces the older on the phone


KINDS: dict[str, Kind] = {
    "ticket_matched": Kind(
        title=_("Match found"),
        body=_("Your table is ready: take your seat."),
        fields=("ticket", "table", "game", "seat"),
        high=True,
    ),
    "your_turn": Kind(
        title=_("Your turn"),
        body=_("The table is waiting for you."),
        fields=("game", "table", "seat", "version"),
        high=True,
        collapse_per_game=True,
    ),
    "deal_over": Kind(
        title=_("Deal over"),
        body=_("The deal has ended: see the result."),
        fields=("game", "table"),
        high=False,
        collapse_per_game=True,
    ),
    "table_closed": Kind(
        title=_("Table closed"),
        body=_("A table you sat at has closed."),
        fields=("table",),
        high=False,
    ),
    "invited": Kind(
        title=_("You are invited"),
        body=_("A player invites you to a private table."),
        # Not the table's code: it opens a private table, and a push crosses Apple's or Google's
        # servers. The app reads it from the feed or the inbox.
        fields=("table", "invitation"),
        high=True,
        inbox=True,
    ),
    "tournament_round": Kind(
        title=_("Tournament round"),
        body=_("A new round seated you: take your seat."),
        fields=("tournament", "round", "table", "seat", "game"),
        high=True,
    ),
    "tournament_finished": Kind(
        title=_("Tournament over"),
        body=_("A tournament you entered has ended: see the standings."),
        fields=("tournament",),
        high=False,
        inbox=True,
    ),
    "report_outcome": Kind(
        title=_("Your report"),
        body=_("A moderator has reviewed your report."),
        # Not the outcome: the app reads it from the feed or the inbox.
        fields=("report",),
        high=False,
        inbox=True,
    ),
    "sanction": Kind(
        title=_("Moderation"),
        body=_("A moderator acted on your account."),
        fields=("kind", "expires_at"),
        high=False,
        inbox=True,
    ),
}

# Kept in the inbox whether or not they are pushed.
INBOX_KINDS = frozenset(kind for kind, row in KINDS.items() if row.inbox)


def payload_fields(kind: str, entry: dict) -> dict:
    """What a push of `entry` may carry: its kind, seq and the kind's own fields."""
    row = KINDS[kind]
    return {"type": kind, "seq": entry["seq"], **{f: entry[f] for f in row.fields if f in entry}}
