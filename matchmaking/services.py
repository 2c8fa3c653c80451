"""Tables and seats: create, join, leave, and dealing each deal through games' services."""

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.feed import feed_append_many
from accounts.webhooks.outbox import webhook_enqueue
from games import engine
from games import selectors as game_selectors
from games import services as game_services
from games.deal_end import DealEnded
from games.models import Game, GameStatus
from infra import commit, wakeups
from infra.api.errors import ApiError, ErrorCode
from infra.timestamps import utc_iso
from matchmaking import bots, scheduling, table_events
from matchmaking.lock_objects import table_lock, table_lock_for_task
from matchmaking.models import (
    DEFAULT_DEAL_PAUSE_SECONDS,
    DEFAULT_PLAY_SECONDS,
    DEFAULT_PROMPT_SECONDS,
    DEFAULT_RETURN_SECONDS,
    SEAT_TAKEN_BY_BOT,
    Penalty,
    PenaltyReason,
    Seat,
    Table,
    TableClosedReason,
    TableStatus,
)
from matchmaking.table_events import user_ref

SETUP_KEYS = {"seed", "hands", "candidate", "aside"}
# docs/rules.md §5 D: leaving a running deal or being removed by a moderator, in every preset.
LEAVE_PENALTY_POINTS = 40
# Void deals dealt again in a row before a table gives up (each is a new seed; a run this long means
# the setup cannot produce an emperor, e.g. fixed staff hands).
MAX_VOID_REDEALS = 50


def _setups_validate(*, rules: Any, setups: list[dict]) -> list[dict]:
    """Deal each fixed setup once now, so a bad one is a 400 here rather than a failure at the 5th join."""
    for index, setup in enumerate(setups):
        if not isinstance(setup, dict) or not setup or set(setup) - SETUP_KEYS:
            raise ApiError(
                ErrorCode.INVALID_REQUEST,
                f"setups[{index}]: expected {{'seed': n}} or {{'hands': [5 lists], 'candidate': s}}",
            )
        try:
            engine.new_deal(rules, **setup)
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            raise ApiError(
                ErrorCode.INVALID_REQUEST, f"setups[{index}]: {exc}", extra={"index": index}
            ) from exc
    return setups


def table_create(
    *,
    creator: Any,
    preset: str,
    options: dict,
    play_seconds: int = DEFAULT_PLAY_SECONDS,
    prompt_seconds: int = DEFAULT_PROMPT_SECONDS,
    deals: int | None = None,
    private: bool = False,
    setups: list[dict] | None = None,
    bots_replace_leavers: bool = False,
    bot_level: str = "",
    deal_pause_seconds: int = DEFAULT_DEAL_PAUSE_SECONDS,
    return_seconds: int = DEFAULT_RETURN_SECONDS,
) -> Table:
    rules = game_selectors.rules_for(preset=preset, options=options)
    if setups and not creator.is_staff:
        raise ApiError(ErrorCode.PERMISSION_DENIED, "Only staff may fix the deals of a table.")
    setups = _setups_validate(rules=rules, setups=setups or [])
    return Table.objects.create(
        creator=creator,
        preset=rules.name,
        options=dict(options),
        play_seconds=play_seconds,
        prompt_seconds=prompt_seconds,
        deals=rules.match_deals if deals is None else deals,
        private=private,
        setups=setups,
        scores=[0] * 5,
        bots_replace_leavers=bots_replace_leavers,
        bot_level=bot_level,
        deal_pause_seconds=deal_pause_seconds,
        return_seconds=return_seconds,
    )


@transaction.atomic
def table_create_in_lobby(*, creator: Any, **fields: Any) -> Table:
    """`POST tables`: `table_create`, refused `409 too_many_open_tables` while TABLES_OPEN_PER_USER of
    the tables `creator` made in the last TABLES_OPEN_HOURS still wait for players (each is a row
    and a lobby entry). Staff are not capped (tournaments are prepared in advance); the matcher's
    tables are seated at once and are not counted."""
    if not creator.is_staff:
        # His row locked: two requests at once cannot both pass the count.
        get_user_model().objects.select_for_update().filter(pk=creator.pk).values_list("pk").get()
        since = timezone.now() - timedelta(hours=settings.TABLES_OPEN_HOURS)
        waiting = Table.objects.filter(
            creator=creator, status=TableStatus.WAITING, matched=False, created_at__gte=since
        ).count()
        if waiting >= settings.TABLES_OPEN_PER_USER:
            raise ApiError(
                ErrorCode.TOO_MANY_OPEN_TABLES,
                f"You have {waiting} tables waiting for players; join one, or wait for them to fill.",
                extra={"limit": settings.TABLES_OPEN_PER_USER},
            )
    return table_create(creator=creator, **fields)


def _check_code(*, table: Table, code: str | None) -> None:
    # A public table may be joined without its code; a wrong code is refused everywhere.
    if (table.private or code is not None) and code != table.code:
        raise ApiError(ErrorCode.PERMISSION_DENIED, "Wrong table code.")


def table_join(
    *, table_id: int, user: Any, code: str | None = None, seat: int | None = None, feed_first: Any = None
) -> Table:
    """Seat `user`; the fifth join deals the first deal (`feed_first`: see games.services.game_start)."""
    try:
        with transaction.atomic():
            table = table_lock(table_id=table_id)
            _check_code(table=table, code=code)
            if table.status != TableStatus.WAITING:
                raise ApiError(ErrorCode.TABLE_CLOSED, "This table no longer takes players.")
            taken = dict(Seat.objects.filter(table=table).values_list("seat", "user_id"))
            if user.pk in taken.values():
                raise ApiError(ErrorCode.SEAT_TAKEN, "You are already seated at this table.")
            if len(taken) >= 5:
                raise ApiError(ErrorCode.TABLE_FULL, "All five seats are taken.")
            if seat is not None and seat in taken:
                raise ApiError(ErrorCode.SEAT_TAKEN, f"Seat {seat} is taken.", extra={"seat": seat})
            if seat is None:
                seat = min(set(range(5)) - set(taken))
            Seat.objects.create(table=table, seat=seat, user=user)
            table_events.append(table=table, type="seat_taken", data={"seat": seat, "user": user_ref(user)})
            if len(taken) == 4:
                table.status = TableStatus.PLAYING
                table.save(update_fields=["status"])
                _deals_deal(table=table, after=None, feed_first=feed_first)
    except IntegrityError as exc:
        # Only reachable without row locks (a constraint caught a race): still a seat conflict.
        raise ApiError(ErrorCode.SEAT_TAKEN, "That seat was just taken.") from exc
    return table


def collusion_pending(*, table: Table) -> dict[int, int]:
    """docs/rules.md §3.6: `collusion` penalties at `table` whose discard is still to come, by user id. A
    discard made at the start of a deal that then went void is made again in the redeal."""
    pending = Penalty.objects.filter(table=table, reason=PenaltyReason.COLLUSION).filter(
        Q(served_in__isnull=True) | Q(served_in__status=GameStatus.VOID)
    )
    counts: dict[int, int] = {}
    for user_id in pending.values_list("user_id", flat=True):
        counts[user_id] = counts.get(user_id, 0) + 1
    return counts


def _deal_start(*, table: Table, start_seat: int, context: Any, feed_first: Any = None) -> Game:
    number = game_selectors.game_count_of_table(table_id=table.pk)
    setup: dict = {"start_seat": start_seat, "context": context}
    if number < len(table.setups):
        setup.update(table.setups[number])
    rows = list(Seat.objects.filter(table=table).select_related("user"))
    # 串牌 penalties of seated players are served now: each discards before play (docs/rules.md §3.6).
    seated = {row.user_id: row.seat for row in rows}
    owed = {user_id: n for user_id, n in collusion_pending(table=table).items() if user_id in seated}
    discards = sorted(seated[user_id] for user_id, n in owed.items() for _ in range(n))
    if discards:
        setup["discards"] = discards
    seats: list[dict | None] = [None] * 5
    for row in rows:
        # An integrator's bot plays through the API itself; only the server's own bots are played here.
        seats[row.seat] = {
            "user_id": row.user_id,
            "username": row.user.username,
            "is_bot": row.user.is_server_bot,
            "bot_account": row.user.is_bot,
            # Away since a deal's end and not back yet (docs/rules.md §5 D): dealt on 托管.
            "trustee": len(table.return_by) == 5 and table.return_by[row.seat] is not None,
        }
    game = game_services.game_start(
        table=table, number=number, setup=setup, seats=seats, feed_first=feed_first
    )
    if discards:
        Penalty.objects.filter(table=table, reason=PenaltyReason.COLLUSION, user_id__in=owed).filter(
            Q(served_in__isnull=True) | Q(served_in__status=GameStatus.VOID)
        ).update(served_in=game)
    table_events.append(table=table, type="deal_started", data={"game": game.pk, "number": number})
    return game


def table_leave(*, table_id: int, user: Any) -> Table:
    """Leave a table. Leaving a running deal costs 40 points and the seat plays on in trustee (docs/rules.md
    §5)."""
    with transaction.atomic():
        row = Seat.objects.filter(table_id=table_id, user=user).first()
        if row is None:
            if not Table.objects.filter(pk=table_id).exists():
                raise ApiError(ErrorCode.NOT_FOUND, "No such table.")
            raise ApiError(ErrorCode.PERMISSION_DENIED, "You are not seated at this table.")
        return _seat_vacate(table_id=table_id, row=row, reason=PenaltyReason.LEFT, moderator=None)


def table_seat_remove(*, table_id: int, seat: int, moderator: Any) -> Table:
    """A moderator removes the player of `seat`: as leaving, 40 points if a deal is running and the seat
    plays on in trustee (docs/rules.md §5); the Penalty row names the moderator."""
    with transaction.atomic():
        if not Table.objects.filter(pk=table_id).exists():
            raise ApiError(ErrorCode.NOT_FOUND, "No such table.")
        row = Seat.objects.filter(table_id=table_id, seat=seat).first()
        if row is None:
            raise ApiError(ErrorCode.NOT_FOUND, f"Seat {seat} is empty.", extra={"seat": seat})
        return _seat_vacate(table_id=table_id, row=row, reason=PenaltyReason.REMOVED, moderator=moderator)


def _seat_vacate(*, table_id: int, row: Seat, reason: str, moderator: Any) -> Table:
    """Inside the caller's transaction: the running deal (if any) goes on with the seat in trustee."""
    running = game_selectors.game_running_id(table_id=table_id)
    if running is not None:
        # Lock order: the game before its table (games/lock_objects.py).
        game_services.game_seat_vacate(
            game_id=running, seat=row.seat, by="left" if moderator is None else "moderator"
        )
    table = table_lock(table_id=table_id)
    if running is not None:
        table.scores[row.seat] -= LEAVE_PENALTY_POINTS
        table.save(update_fields=["scores"])
        Penalty.objects.create(
            user_id=row.user_id,
            table=table,
            game_id=running,
            seat=row.seat,
            points=LEAVE_PENALTY_POINTS,
            reason=reason,
            moderator=moderator,
        )
    Seat.objects.filter(pk=row.pk).delete()
    table_events.append(table=table, type="seat_left", data={"seat": row.seat, "user": user_ref(row.user)})
    # His open streams of the deal check again: his seat's private events are no longer his.
    wakeups.publish_access(user_ids=[row.user_id])
    return table


# --- The end of a deal and the next deal (docs/architecture.md "The end of a deal") ----------------------
#
# 1. games finishes a deal and marks it `table_pending` (an outbox row) in the transaction that ended
#    it, and sends `matchmaking.table_deal_end` once that commits (GAMES_DEAL_END_TASK).
# 2. `table_deal_end` (that task, or the beat sweep for a lost one) takes the deal once, tallies it,
#    and decides: the table closes, or its next deal is due at `next_deal_at` (the pause).
# 3. `table_deal_next` (a task due at `next_deal_at`, or the sweep) deals it; a void deal is dealt
#    again there and nowhere else.
# Each step locks the table (and step 2 the finished game first) and checks what it finds, so a
# repeated task, two workers or the sweep beside the task do it once.

# Presets whose source dissolves a table at once when a deal ends with a seat on 托管 (the 联众
# rule, docs/rules.md §5); elsewhere, and at every quick-match table, the seat has `return_seconds`.
TRUSTEE_DISSOLVES_PRESETS = frozenset({"lianzhong_simple", "lianzhong_classic"})


def table_deal_end(*, game_id: int) -> bool:
    """Step 2: take the finished deal `game_id` for its table (once), tally it, and close the table or
    make its next deal due. False when there was nothing to take."""
    with transaction.atomic():
        ended = game_services.game_deal_take(game_id=game_id)  # the game row before the table row
        if ended is None:
            return False
        table = table_lock(table_id=ended.table_id)
        if table.status != TableStatus.PLAYING:
            return False
        _deal_tally(table=table, ended=ended)
        recipients = _humans_seated(table=table)
        closing = _deal_closing_reason(table=table, ended=ended)
        if closing is None:
            table.next_deal_at = timezone.now() + timedelta(
                seconds=0 if ended.void else table.deal_pause_seconds
            )
            table.save(update_fields=["next_deal_at", "return_by"])
        _deal_over_announce(table=table, ended=ended, user_ids=recipients)
        if closing is not None:
            _table_close(table=table, reason=closing)
            return True
        table_id, due = table.pk, table.next_deal_at
        commit.on_commit(lambda: scheduling.table_deal_next_schedule(table_id=table_id, at=due))
    return True


def table_deal_next(*, table_id: int) -> bool:
    """Step 3: deal the table's next deal once it is due (a task due at `next_deal_at`, or the sweep).
    A void deal is dealt again at once (new seed, same start seat and context, docs/rules.md §2), at
    most MAX_VOID_REDEALS times in a row. False when nothing was dealt (not due, dealt already, closed)."""
    with transaction.atomic():
        table = table_lock_for_task(table_id=table_id)
        if table is None:
            return False
        due = table.next_deal_at
        if table.status != TableStatus.PLAYING or due is None or due > timezone.now():
            return False
        if game_selectors.game_running_id(table_id=table.pk) is not None:
            return False
        table.next_deal_at = None
        table.save(update_fields=["next_deal_at"])
        # Seats may have emptied during the pause (leaving between deals costs nothing).
        closing = _seating_closing_reason(table=table)
        if closing is not None:
            _table_close(table=table, reason=closing)
            return True
        _deals_deal(table=table, after=game_selectors.game_last_ended(table_id=table.pk))
    return True


def tables_deals_sweep(*, grace: float | None = None, limit: int = 100) -> int:
    """The beat's make-good for steps 2 and 3: finished deals no table took for `grace` seconds, and
    next deals due more than `grace` seconds ago (their task was lost, or the worker was down).
    Returns how many steps it ran."""
    grace = settings.GAMES_SWEEP_GRACE if grace is None else grace
    taken = sum(
        table_deal_end(game_id=game_id)
        for game_id in game_selectors.games_table_pending(older_than=grace, limit=limit)
    )
    cutoff = timezone.now() - timedelta(seconds=grace)
    due = Table.objects.filter(status=TableStatus.PLAYING, next_deal_at__lt=cutoff).order_by("next_deal_at")
    tables = list(due.values_list("pk", flat=True)[:limit])
    return taken + sum(table_deal_next(table_id=table_id) for table_id in tables)


def _deals_deal(*, table: Table, after: DealEnded | None, feed_first: Any = None) -> None:
    """Deal until a deal is not void, or the table has had MAX_VOID_REDEALS void deals in a row."""
    while True:
        if table.boards and game_selectors.game_count_of_table(table_id=table.pk) >= table.deals:
            # docs/tournaments.md: every board dealt (a void one scores 0 and is not dealt again).
            _table_close(table=table, reason=TableClosedReason.FINISHED)
            return
        if after is None or table.boards:
            # The first deal, and every board (docs/tournaments.md: each is dealt as at every other
            # table of its round, with no start seat or tribute carried over).
            start_seat, context = 0, None
        elif after.void:
            start_seat, context = after.setup.get("start_seat", 0), after.setup.get("context")
        else:
            start_seat, context = after.outcome.next_start_seat, after.outcome
        game = _deal_start(table=table, start_seat=start_seat, context=context, feed_first=feed_first)
        if game.status != GameStatus.VOID:
            return
        if game_selectors.game_void_streak(table_id=table.pk) >= MAX_VOID_REDEALS:
            _table_close(table=table, reason=TableClosedReason.VOID_LIMIT)
            return
        after, feed_first = game_selectors.game_ended(game=game), None


def _humans_seated(*, table: Table) -> list[int]:
    """The users a table's private feed entries go to: its seated players, not the server's bots."""
    seated = Seat.objects.filter(table=table).exclude(user__is_bot=True, user__bot_owner__isnull=True)
    return list(seated.order_by("seat").values_list("user_id", flat=True))


def _deal_over_announce(*, table: Table, ended: DealEnded, user_ids: list[int]) -> None:
    """The `deal_over` feed entry of each seated player (docs/client-guide.md "Between deals")."""
    scores = None if ended.void or ended.aborted else list(ended.outcome.scores)
    data = {
        "table": table.pk,
        "game": ended.game_id,
        "scores": scores,
        "unscored": ended.unscored,
        "void": ended.void,
        "totals": list(table.scores),
        "next_deal": table.next_deal_at is not None,
        "next_deal_at": utc_iso(table.next_deal_at),
    }
    feed_append_many([(user_id, "deal_over", data) for user_id in user_ids])


def _deal_tally(*, table: Table, ended: DealEnded) -> None:
    scores = None if ended.void or ended.aborted else list(ended.outcome.scores)
    if scores is not None and not ended.unscored:
        table.scores = [total + score for total, score in zip(table.scores, scores, strict=True)]
        table.deals_done += 1
        table.save(update_fields=["scores", "deals_done"])
    if not ended.void:
        table_events.append(
            table=table,
            type="deal_over",
            data={"game": ended.game_id, "scores": scores, "unscored": ended.unscored},
        )


def _deal_closing_reason(*, table: Table, ended: DealEnded) -> str | None:
    if ended.aborted:
        return TableClosedReason.ABORTED
    if not ended.void and table.deals and table.deals_done >= table.deals:
        return TableClosedReason.FINISHED
    # docs/tournaments.md: a board void at this table scores 0 here and is not dealt again.
    if table.boards and game_selectors.game_count_of_table(table_id=table.pk) >= table.deals:
        return TableClosedReason.FINISHED
    closing = _seating_closing_reason(table=table)
    if closing is not None:
        return closing
    if ended.void and game_selectors.game_void_streak(table_id=table.pk) >= MAX_VOID_REDEALS:
        return TableClosedReason.VOID_LIMIT
    # A seat whose player left and that a bot now takes over is not waited for.
    replaced = set(ended.left_seats) if table.bots_replace_leavers else set()
    away = set(ended.trustee_seats) - replaced
    # A seat that cannot come back (its 托管 locked: banned, or more than three entries; its
    # account deactivated) is not waited for either: the table dissolves, as docs/rules.md §5 says.
    inactive = Seat.objects.filter(table=table, seat__in=away, user__is_active=False)
    if (away & set(ended.locked_seats)) or inactive.exists():
        return TableClosedReason.TRUSTEE
    return _away_seats_settle(table=table, away=away)


def _away_seats_settle(*, table: Table, away: set[int]) -> str | None:
    """docs/rules.md §5 D: seats on 托管 at a deal's end. Where the preset's source says so (the 联众
    presets, not at quick-match tables) the table dissolves at once. Elsewhere each such seat has
    `return_seconds` from the first deal's end that found it away: the next deals deal it on 托管,
    and it comes back by taking its seat off 托管 (`POST games/{id}/trustee`, or its first action).
    Found still away after that, a bot takes it where bots replace leavers (quick match), else the
    table dissolves. Updates `table.return_by` (saved by the caller); returns a closing reason."""
    if away and table.preset in TRUSTEE_DISSOLVES_PRESETS and not table.matched:
        return TableClosedReason.TRUSTEE
    now = timezone.now()
    return_by = list(table.return_by) if len(table.return_by) == 5 else [None] * 5
    expired = []
    for seat in range(5):
        if seat not in away:
            return_by[seat] = None
            continue
        if return_by[seat] is None:
            return_by[seat] = utc_iso(now + timedelta(seconds=table.return_seconds))
        if datetime.fromisoformat(return_by[seat]) <= now:  # return_seconds 0: no grace
            expired.append(seat)
    table.return_by = return_by
    if not expired:
        return None
    if not table.bots_replace_leavers:
        return TableClosedReason.TRUSTEE
    _away_seats_give_to_bots(table=table, seats=expired)
    for seat in expired:
        table.return_by[seat] = None
    if not Seat.objects.filter(table=table).exclude(user__is_bot=True, user__bot_owner__isnull=True).exists():
        return TableClosedReason.NO_HUMANS
    return None


def _away_seats_give_to_bots(*, table: Table, seats: list[int]) -> None:
    """The players of `seats` stayed away past their return time: each loses his seat (no penalty:
    he did not leave, docs/rules.md §5 D) and hears why (`table_closed`, reason `away`); a bot sits
    down in his place."""
    rows = list(Seat.objects.filter(table=table, seat__in=seats).select_related("user"))
    for row in rows:
        Seat.objects.filter(pk=row.pk).delete()
        table_events.append(
            table=table, type="seat_left", data={"seat": row.seat, "user": user_ref(row.user)}
        )
    closed = {"table": table.pk, "reason": SEAT_TAKEN_BY_BOT}
    feed_append_many([(row.user_id, "table_closed", closed) for row in rows])
    wakeups.publish_access(user_ids=[row.user_id for row in rows])
    _empty_seats_fill_with_bots(table=table)


def _seating_closing_reason(*, table: Table) -> str | None:
    """Before a next deal: a seat left empty closes the table, unless bots replace leavers."""
    seated = Seat.objects.filter(table=table)
    if seated.count() < 5 and not table.bots_replace_leavers:
        return TableClosedReason.PLAYER_LEFT
    # docs/matchmaking.md "Closing": a table nobody but the server's bots sits at (its last player
    # left or was removed, and bots replace leavers) deals no more. An integrator's bot plays
    # through the API for someone, so it counts as a player.
    if not seated.exclude(user__is_bot=True, user__bot_owner__isnull=True).exists():
        return TableClosedReason.NO_HUMANS
    if seated.count() < 5:
        _empty_seats_fill_with_bots(table=table)
    return None


def _empty_seats_fill_with_bots(*, table: Table) -> None:
    """The table setting `bots_replace_leavers`: a bot sits where a player left, before the next deal."""
    taken = set(Seat.objects.filter(table=table).values_list("seat", flat=True))
    empty = [seat for seat in range(5) if seat not in taken]
    for seat, bot in zip(empty, bots.bot_users_take(count=len(empty)), strict=True):
        Seat.objects.create(table=table, seat=seat, user=bot)
        table_events.append(table=table, type="seat_taken", data={"seat": seat, "user": user_ref(bot)})


def _table_close(*, table: Table, reason: str) -> None:
    """A table that played all it meant to (its deals, or until someone left an endless table) is
    finished; one cut short is dissolved."""
    finished = reason == TableClosedReason.FINISHED or (
        reason == TableClosedReason.PLAYER_LEFT and table.deals == 0
    )
    table.status = TableStatus.FINISHED if finished else TableStatus.DISSOLVED
    table.closed_reason = reason
    table.next_deal_at = None
    table.save(update_fields=["status", "closed_reason", "next_deal_at"])
    table_events.append(table=table, type="table_closed", data={"reason": reason})
    closed = {"table": table.pk, "reason": reason}
    feed_append_many([(user_id, "table_closed", closed) for user_id in _humans_seated(table=table)])
    players = list(Seat.objects.filter(table=table).values_list("user_id", flat=True))
    webhook_enqueue(
        event="table.closed",
        data={"table": table.pk, "status": table.status, "reason": reason, "scores": table.scores},
        user_ids=[table.creator_id, *players],
        table_id=table.pk,
    )  # noqa: E501
