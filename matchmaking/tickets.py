"""Quick-match tickets (docs/matchmaking.md "Tickets"): queue, poll, cancel, expire.

The matcher (matchmaking/matching.py) seats waiting tickets; everything here only ever moves a ticket
out of `waiting` under its row lock, so a ticket is matched, cancelled or expired exactly once.
Each such move wakes the ticket's long-polls after commit (infra/wakeups.py), and a ticket that
leaves the queue unseated tells its owner's feed why (`ticket_expired`, `ticket_cancelled`,
docs/client-guide.md §4): a client that follows only its feed learns it is no longer queued.
"""

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts import selectors as account_selectors
from accounts.feed import feed_append_many
from accounts.models import Rating, SanctionKind
from accounts.services import rating_model
from games import selectors as game_selectors
from infra import commit, wakeups
from infra.api.errors import ApiError, ErrorCode
from matchmaking.models import Ticket, TicketStatus

# A party sits at one table with at least one seat left for someone else (a stranger or a bot).
PARTY_MAX = 4


def _check_may_queue(user: Any) -> None:
    """The one place that says who may queue: not a user under a `ban` or a `queue_ban` (403 `banned`
    with the sanction's kind and end). The ticket view's permission refuses them before this (same
    sanctions, accounts/permissions.py); the matcher asks again for tickets already waiting."""
    sanction = account_selectors.sanction_active(
        user_id=user.pk, kinds=[SanctionKind.BAN, SanctionKind.QUEUE_BAN]
    )
    if sanction is not None:
        raise account_selectors.banned_error(sanction=sanction)


def ticket_may_queue(*, user: Any) -> bool:
    """For the matcher: a user banned while waiting is not seated."""
    try:
        _check_may_queue(user)
    except ApiError:
        return False
    return True


def _rating_snapshot(*, user: Any, preset: str) -> float:
    ordinal = Rating.objects.filter(user=user, preset=preset).values_list("ordinal", flat=True).first()
    if ordinal is not None:
        return ordinal
    # A player without a rating in this preset has openskill's starting one (mu - 3 sigma).
    model = rating_model()
    return model.mu - 3 * model.sigma


def ticket_is_stale(*, ticket: Ticket, now: datetime) -> bool:
    """Waiting, and not polled for MATCHMAKING_TICKET_TTL seconds: its owner is gone."""
    ttl = timedelta(seconds=settings.MATCHMAKING_TICKET_TTL)
    return ticket.status == TicketStatus.WAITING and ticket.last_polled_at < now - ttl


# Why a ticket left the queue unseated (the `reason` of its owner's feed entry).
EXPIRED_NOT_POLLED = "not_polled"  # not read for MATCHMAKING_TICKET_TTL seconds
CANCELLED_BY = ("you", "staff", "banned", "account_deleted")


def ticket_settle(*, ticket: Ticket, status: str, fields: tuple[str, ...] = (), reason: str = "") -> None:
    """Move a locked waiting ticket to `status` (and save `fields` set by the caller); wake its polls.
    Cancelled or expired (`reason` given): its owner's feed is told."""
    tickets_settle(tickets=[ticket], status=status, fields=fields, reason=reason)


def tickets_settle(
    *, tickets: list[Ticket], status: str, fields: tuple[str, ...] = (), reason: str = ""
) -> None:
    """`ticket_settle` for each of these locked waiting tickets, their feed entries in one append."""
    entries = []
    for ticket in tickets:
        ticket.status = status
        ticket.save(update_fields=["status", *fields])
        if status in (TicketStatus.CANCELLED, TicketStatus.EXPIRED):
            type = "ticket_cancelled" if status == TicketStatus.CANCELLED else "ticket_expired"
            entries.append((ticket.user_id, type, {"ticket": ticket.pk, "reason": reason}))
    ticket_ids = [ticket.pk for ticket in tickets]
    commit.on_commit(lambda: [wakeups.publish_ticket(ticket_id=ticket_id) for ticket_id in ticket_ids])
    feed_append_many(entries)


def ticket_create(
    *,
    user: Any,
    preset: str,
    options: dict,
    rated: bool = True,
    bots: bool = True,
    party: str = "",
    bot_level: str = "",
) -> Ticket:
    """Queue `user`. A party ticket is always unrated: friends who chose to sit together are no
    measure of skill. A waiting ticket of the same user is a 409, unless it is stale (then it expires)."""
    _check_may_queue(user)
    rules = game_selectors.rules_for(preset=preset, options=options)
    # With the preset's defaults filled in, so `{}` and the explicit defaults share one queue.
    options = rules.option_dict
    if party:
        rated = False
    now = timezone.now()
    try:
        with transaction.atomic():
            current = (
                Ticket.objects.select_for_update().filter(user=user, status=TicketStatus.WAITING).first()
            )
            if current is not None:
                if not ticket_is_stale(ticket=current, now=now):
                    raise ApiError(
                        ErrorCode.TICKET_EXISTS,
                        "You already have a waiting ticket.",
                        extra={"ticket": current.pk},
                    )
                ticket_settle(ticket=current, status=TicketStatus.EXPIRED, reason=EXPIRED_NOT_POLLED)
            if party and _party_size(party=party, preset=rules.name, options=options) >= PARTY_MAX:
                raise ApiError(
                    ErrorCode.TABLE_FULL,
                    f"Party {party!r} already has {PARTY_MAX} players.",
                    extra={"party": party},
                )
            return Ticket.objects.create(
                user=user,
                preset=rules.name,
                options=options,
                rated=rated,
                bots=bots,
                bot_level=bot_level,
                party=party,
                rating=_rating_snapshot(user=user, preset=rules.name),
                last_polled_at=now,
            )
    except IntegrityError as exc:
        # Two requests of one user at once: the partial unique constraint let only one through.
        raise ApiError(ErrorCode.TICKET_EXISTS, "You already have a waiting ticket.") from exc


def _party_size(*, party: str, preset: str, options: dict) -> int:
    # Advisory: two friends joining a full party at the same instant may make it five; the matcher
    # then seats the party in chunks of PARTY_MAX (matching.py), so nobody is lost.
    return Ticket.objects.filter(
        party=party, preset=preset, options=options, status=TicketStatus.WAITING
    ).count()


def _ticket_lock(*, ticket_id: int, user: Any) -> Ticket:
    """The owner's (or, for staff, anyone's) ticket, locked; 404 to everyone else, as if absent."""
    ticket = Ticket.objects.select_for_update().filter(pk=ticket_id).first()
    if ticket is None or (ticket.user_id != user.pk and not user.is_staff):
        raise ApiError(ErrorCode.NOT_FOUND, "No such ticket.")
    return ticket


def ticket_poll(*, ticket_id: int, user: Any) -> Ticket:
    """Read a ticket. The owner's read keeps it alive (`last_polled_at`); a stale one expires now,
    so a read never reports `waiting` for a ticket the matcher would no longer seat."""
    with transaction.atomic():
        ticket = _ticket_lock(ticket_id=ticket_id, user=user)
        now = timezone.now()
        if ticket_is_stale(ticket=ticket, now=now):
            ticket_settle(ticket=ticket, status=TicketStatus.EXPIRED, reason=EXPIRED_NOT_POLLED)
        elif ticket.status == TicketStatus.WAITING and ticket.user_id == user.pk:
            ticket.last_polled_at = now
            ticket.save(update_fields=["last_polled_at"])
    return ticket


def ticket_cancel(*, ticket_id: int, user: Any) -> Ticket:
    """Leave the queue. Once matched it is too late (409 `ticket_matched`: go to the table); a ticket
    already cancelled or expired is answered as it is."""
    with transaction.atomic():
        ticket = _ticket_lock(ticket_id=ticket_id, user=user)
        if ticket.status == TicketStatus.MATCHED:
            raise ApiError(
                ErrorCode.TICKET_MATCHED,
                "This ticket is already seated.",
                extra={"table": ticket.table_id, "game": ticket.game_id, "seat": ticket.seat},
            )
        if ticket.status == TicketStatus.WAITING:
            reason = "you" if ticket.user_id == user.pk else "staff"
            ticket_settle(ticket=ticket, status=TicketStatus.CANCELLED, reason=reason)
    return ticket


def tickets_expire(*, now: datetime) -> int:
    """Expire the stale waiting tickets no one else holds locked; returns how many."""
    cutoff = now - timedelta(seconds=settings.MATCHMAKING_TICKET_TTL)
    with transaction.atomic():
        stale = list(
            Ticket.objects.select_for_update(skip_locked=True).filter(
                status=TicketStatus.WAITING, last_polled_at__lt=cutoff
            )
        )
        tickets_settle(tickets=stale, status=TicketStatus.EXPIRED, reason=EXPIRED_NOT_POLLED)
    return len(stale)


def tickets_cancel_of_user(*, user_id: int, reason: str = "banned") -> int:
    """Cancel the user's waiting tickets (a moderator's ban; `reason`: one of CANCELLED_BY); returns
    how many. Their polls wake."""
    with transaction.atomic():
        waiting = list(
            Ticket.objects.select_for_update().filter(user_id=user_id, status=TicketStatus.WAITING)
        )
        tickets_settle(tickets=waiting, status=TicketStatus.CANCELLED, reason=reason)
    return len(waiting)
