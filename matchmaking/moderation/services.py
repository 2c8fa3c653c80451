"""Moderators' writes. Each records its audit entry in the transaction of the change it makes, so an
action is never without its entry, nor an entry without its action."""

from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from accounts import services as account_services
from accounts.feed import feed_append
from accounts.models import ModerationActionKind, Sanction, SanctionKind
from games import selectors as game_selectors
from games import services as game_services
from games.models import Game
from infra.api.errors import ApiError, ErrorCode
from matchmaking import services as table_services
from matchmaking import tickets
from matchmaking.lock_objects import table_lock
from matchmaking.models import Penalty, PenaltyReason, Report, ReportStatus, Seat, Table, TableStatus

# docs/rules.md §3.5: fouls are a campus rule; the second removes the player.
FOUL_PRESETS = ("campus",)
FOULS_TO_REMOVE = 2
# docs/rules.md §3.6: 串牌 (exposing cards, collusion) is laowang's; the offender discards before the next
# deal.
COLLUSION_PRESETS = ("laowang",)
OPEN_STATUSES = (TableStatus.WAITING, TableStatus.PLAYING)


def report_create(*, reporter: Any, user_id: int, game_id: int | None, reason: str, text: str = "") -> Report:
    if user_id == reporter.pk:
        raise ApiError(
            ErrorCode.INVALID_REQUEST, "You cannot report yourself.", extra={"fields": {"user": ["yourself"]}}
        )
    if not get_user_model().objects.filter(pk=user_id).exists():
        raise ApiError(ErrorCode.NOT_FOUND, "No such user.")
    if game_id is not None and not Game.objects.filter(pk=game_id).exists():
        raise ApiError(ErrorCode.NOT_FOUND, "No such game.")
    return Report.objects.create(
        reporter=reporter, user_id=user_id, game_id=game_id, reason=reason, text=text
    )


def _report_lock(*, report_id: int) -> Report:
    report = Report.objects.select_for_update().filter(pk=report_id).first()
    if report is None:
        raise ApiError(ErrorCode.NOT_FOUND, "No such report.", extra={"report": report_id})
    return report


# What the reporter's `report_outcome` entry says (docs/client-guide.md §4): whether a moderator acted,
# never how: the sanction is the reported player's own business (his `sanction` entry).
REPORT_OUTCOMES = {ReportStatus.ACTIONED: "action_taken", ReportStatus.DISMISSED: "no_action"}


def _report_handle(*, report: Report, status: str, moderator: Any, note: str) -> None:
    """Settle the report and tell its reporter, in the same transaction (his entry exists exactly when
    the decision does). Called after the action's own writes: the feed's lock is taken last."""
    report.status = status
    report.handled_by = moderator
    report.handled_at = timezone.now()
    report.note = note
    report.save(update_fields=["status", "handled_by", "handled_at", "note"])
    feed_append(
        user_id=report.reporter_id,
        type="report_outcome",
        data={"report": report.pk, "outcome": REPORT_OUTCOMES[status]},
    )


def report_dismiss(*, report_id: int, moderator: Any, note: str, source: str) -> Report:
    with transaction.atomic():
        report = _report_lock(report_id=report_id)
        if report.status != ReportStatus.OPEN:
            raise ApiError(ErrorCode.INVALID_REQUEST, f"This report is already {report.status}.")
        _report_handle(report=report, status=ReportStatus.DISMISSED, moderator=moderator, note=note)
        account_services.moderation_action_record(
            moderator=moderator,
            action="dismiss",
            target_type="report",
            target_id=report.pk,
            subject_user_id=report.user_id,
            reason=note,
            source=source,
        )
    return report


def user_tickets_cancel(*, user_id: int) -> int:
    """Cancel the user's waiting matchmaking tickets (docs/matchmaking.md); returns how many."""
    return tickets.tickets_cancel_of_user(user_id=user_id)


def _running_games(*, user_id: int) -> list[int]:
    """The running deals the user plays in, by id (the lock order)."""
    table_ids = Seat.objects.filter(user_id=user_id, table__status=TableStatus.PLAYING).values_list(
        "table_id", flat=True
    )
    running = (game_selectors.game_running_id(table_id=table_id) for table_id in table_ids)
    return sorted(game_id for game_id in running if game_id is not None)


def sanction_impose(
    *,
    user_id: int,
    kind: str,
    reason: str,
    expires_at: datetime | None,
    moderator: Any,
    source: str,
    report_id: int | None = None,
) -> Sanction:
    """A sanction with its effects (docs/moderation.md). It binds from the commit on (accounts/permissions.py
    checks every request). A `ban` then puts each of the user's running seats on locked trustee, so
    his deals go on without waiting for his deadlines, and cancels his tickets; a `queue_ban` only
    keeps him out of new tables (the permission refuses joins and tickets)."""
    user = get_user_model().objects.filter(pk=user_id).first()
    if user is None:
        raise ApiError(ErrorCode.NOT_FOUND, "No such user.", extra={"user": user_id})
    # Outside the transaction: a refusal (docs/moderation.md "Who may sanction whom") stays audited.
    account_services.sanction_authority_check(
        moderator=moderator,
        user=user,
        attempted=ModerationActionKind.SANCTION,
        target_type="user",
        target_id=user.pk,
        reason=reason,
        source=source,
        details={"kind": kind},
    )
    with transaction.atomic():
        report = _report_lock(report_id=report_id) if report_id is not None else None
        sanction = account_services.sanction_create(
            user=user,
            kind=kind,
            reason=reason,
            moderator=moderator,
            expires_at=expires_at,
            source=source,
            report_id=report_id,
        )
        if report is not None:
            _report_handle(report=report, status=ReportStatus.ACTIONED, moderator=moderator, note=reason)
    if kind == SanctionKind.BAN:
        # One deal per transaction (games/lock_objects.py); the ban already binds, this only spares
        # the other players his deadlines.
        for game_id in _running_games(user_id=user_id):
            game_services.game_seats_lock_trustee(game_id=game_id, user_id=user_id)
        user_tickets_cancel(user_id=user_id)
    return sanction


def sanction_revoke(*, sanction_id: int, moderator: Any, note: str, source: str) -> Sanction:
    return account_services.sanction_revoke(
        sanction_id=sanction_id, moderator=moderator, note=note, source=source
    )


def game_abort(
    *, game_id: int, reason: str, moderator: Any, source: str, report_id: int | None = None
) -> Game:
    """End a running deal at once, unscored and unrated; its table closes (`table_closed {reason:
    "aborted"}`) in its deal-end step after the commit (matchmaking.services.table_deal_end,
    docs/moderation.md)."""
    if not reason.strip():
        raise ApiError(
            ErrorCode.INVALID_REQUEST, "A reason is required.", extra={"fields": {"reason": ["required"]}}
        )
    with transaction.atomic():
        # Lock order: the game (inside game_abort) before its table and the report.
        if not game_services.game_abort(game_id=game_id, reason=reason):
            raise ApiError(ErrorCode.GAME_OVER, "This deal is over.")
        game = Game.objects.get(pk=game_id)
        report = _report_lock(report_id=report_id) if report_id is not None else None
        if report is not None:
            _report_handle(report=report, status=ReportStatus.ACTIONED, moderator=moderator, note=reason)
        account_services.moderation_action_record(
            moderator=moderator,
            action="abort",
            target_type="game",
            target_id=game.pk,
            reason=reason,
            source=source,
            subject_user_id=report.user_id if report is not None else None,
            details={"table": game.table_id, "report": report_id, "players": list(game.players)},
        )
    return game


def player_remove(*, table_id: int, seat: int, moderator: Any, reason: str, source: str) -> Table:
    """Remove the player of a seat (docs/rules.md §5: 40 points during a running deal) and record it."""
    with transaction.atomic():
        row = Seat.objects.filter(table_id=table_id, seat=seat).first()
        table = table_services.table_seat_remove(table_id=table_id, seat=seat, moderator=moderator)
        account_services.moderation_action_record(
            moderator=moderator,
            action="remove_player",
            target_type="table",
            target_id=table_id,
            subject_user_id=row.user_id if row is not None else None,
            reason=reason,
            source=source,
            details={"seat": seat},
        )
    return table


def _preset_penalty_record(
    *, table_id: int, seat: int, moderator: Any, reason: str, kind: str, presets: tuple[str, ...], rule: str
) -> tuple[Table, Seat]:
    """The part every preset penalty shares (inside the caller's transaction): a reason, a table of
    one of `presets` (locked), a seated player, and his 0-point `kind` penalty. Returns the table
    and the seat row."""
    if not reason.strip():
        raise ApiError(
            ErrorCode.INVALID_REQUEST, "A reason is required.", extra={"fields": {"reason": ["required"]}}
        )
    table = table_lock(table_id=table_id)
    if table.preset not in presets:
        raise ApiError(
            ErrorCode.INVALID_REQUEST,
            f"{rule} are a rule of {', '.join(presets)}; this table plays {table.preset}.",
        )
    row = Seat.objects.filter(table=table, seat=seat).first()
    if row is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"Seat {seat} is empty.", extra={"seat": seat})
    Penalty.objects.create(
        user_id=row.user_id,
        table=table,
        game_id=game_selectors.game_running_id(table_id=table_id),
        seat=seat,
        points=0,
        reason=kind,
        moderator=moderator,
    )
    return table, row


def seat_foul(*, table_id: int, seat: int, moderator: Any, reason: str, source: str) -> tuple[int, int, bool]:
    """Record a foul of the player of `seat` (docs/rules.md §3.5, campus: talking, noise, peeking) as a
    0-point
    penalty; his second foul at the table removes him (40 points during a deal, like any removal).
    Returns (the player's id, his fouls at this table, whether he was removed)."""
    with transaction.atomic():
        table, row = _preset_penalty_record(
            table_id=table_id,
            seat=seat,
            moderator=moderator,
            reason=reason,
            kind=PenaltyReason.FOUL,
            presets=FOUL_PRESETS,
            rule="Fouls",
        )
        fouls = Penalty.objects.filter(table=table, user_id=row.user_id, reason=PenaltyReason.FOUL).count()
        removed = fouls >= FOULS_TO_REMOVE
        account_services.moderation_action_record(
            moderator=moderator,
            action="foul",
            target_type="table",
            target_id=table_id,
            subject_user_id=row.user_id,
            reason=reason,
            source=source,
            details={"seat": seat, "fouls": fouls, "removed": removed},
        )
    if removed:
        # Its own transaction: removal locks the running deal before the table (lock order).
        player_remove(
            table_id=table_id, seat=seat, moderator=moderator, reason=f"Second foul: {reason}", source=source
        )
    return row.user_id, fouls, removed


def seat_collusion(*, table_id: int, seat: int, moderator: Any, reason: str, source: str) -> tuple[int, int]:
    """Record 串牌 (docs/rules.md §3.6, laowang: exposing cards or collusion) by the player of `seat`: a
    0-point `collusion` penalty that the table's next deal serves, the offender discarding a 2 (else
    his highest non-joker) out of play before it starts (matchmaking.services deals it).
    Returns (the player's id, his penalties at this table still waiting for their deal)."""
    with transaction.atomic():
        if Table.objects.filter(pk=table_id).exclude(status__in=OPEN_STATUSES).exists():
            raise ApiError(
                ErrorCode.TABLE_CLOSED, "This table deals no more: the discard could not be served."
            )
        table, row = _preset_penalty_record(
            table_id=table_id,
            seat=seat,
            moderator=moderator,
            reason=reason,
            kind=PenaltyReason.COLLUSION,
            presets=COLLUSION_PRESETS,
            rule="串牌 discards",
        )
        pending = table_services.collusion_pending(table=table).get(row.user_id, 0)
        account_services.moderation_action_record(
            moderator=moderator,
            action="collusion",
            target_type="table",
            target_id=table_id,
            subject_user_id=row.user_id,
            reason=reason,
            source=source,
            details={"seat": seat, "pending": pending},
        )
    return row.user_id, pending
