"""Tables and seats: create, join, leave, and dealing each deal through games' services."""

from typing import Any

from django.db import IntegrityError, transaction

from config.api.errors import ApiError, ErrorCode
from games import engine
from games import selectors as game_selectors
from games import services as game_services
from games.models import Game, GameStatus
from matchmaking.lock_objects import table_lock
from matchmaking.models import Penalty, PenaltyReason, Seat, Table, TableStatus

SETUP_KEYS = {"seed", "hands", "candidate", "aside"}
# RULES §5 D: leaving a running deal or being removed by a moderator, in every preset.
LEAVE_PENALTY_POINTS = 40


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
    play_seconds: int = 20,
    prompt_seconds: int = 15,
    deals: int | None = None,
    private: bool = False,
    setups: list[dict] | None = None,
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
    )


def _check_code(*, table: Table, code: str | None) -> None:
    # A public table may be joined without its code; a wrong code is refused everywhere.
    if (table.private or code is not None) and code != table.code:
        raise ApiError(ErrorCode.PERMISSION_DENIED, "Wrong table code.")


def table_join(*, table_id: int, user: Any, code: str | None = None, seat: int | None = None) -> Table:
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
            if len(taken) == 4:
                table.status = TableStatus.PLAYING
                table.save(update_fields=["status"])
                _deal_start(table=table, start_seat=0, context=None)
    except IntegrityError as exc:
        # Only reachable without row locks (a constraint caught a race): still a seat conflict.
        raise ApiError(ErrorCode.SEAT_TAKEN, "That seat was just taken.") from exc
    return table


def _deal_start(*, table: Table, start_seat: int, context: dict | None) -> Game:
    number = game_selectors.game_count_of_table(table_id=table.pk)
    setup: dict = {"start_seat": start_seat, "context": context}
    if number < len(table.setups):
        setup.update(table.setups[number])
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("seat"))
    user_ids: list[int | None] = [None] * 5
    players: list[str | None] = [None] * 5
    for row in seats:
        user_ids[row.seat] = row.user_id
        players[row.seat] = row.user.username
    return game_services.game_start(
        table=table, number=number, setup=setup, seat_user_ids=user_ids, players=players
    )


def table_leave(*, table_id: int, user: Any) -> Table:
    """Leave a table. Leaving a running deal costs 40 points and the seat plays on in trustee (RULES §5)."""
    with transaction.atomic():
        row = Seat.objects.filter(table_id=table_id, user=user).first()
        if row is None:
            if not Table.objects.filter(pk=table_id).exists():
                raise ApiError(ErrorCode.NOT_FOUND, "No such table.")
            raise ApiError(ErrorCode.PERMISSION_DENIED, "You are not seated at this table.")
        return _seat_vacate(table_id=table_id, row=row, reason=PenaltyReason.LEFT, moderator=None)


def table_seat_remove(*, table_id: int, seat: int, moderator: Any) -> Table:
    """A moderator removes the player of `seat`: as leaving, 40 points if a deal is running and the seat
    plays on in trustee (RULES §5); the Penalty row names the moderator."""
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
        game_services.game_seat_vacate(game_id=running, seat=row.seat)
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
    return table


def table_deal_finished(*, game: Game) -> None:
    """Called by games inside the transaction that ended `game`: score it and deal the next deal.

    A void deal is dealt again (new seed, same start seat, same context). The table ends when its
    deals are played, or when a seat is empty or on trustee at the end of a deal (RULES §5).
    """
    table = table_lock(table_id=game.table_id)
    final = game.final
    fields = ["status"]
    if game.status == GameStatus.OVER and not game.unscored:
        table.scores = [total + score for total, score in zip(table.scores, final["scores"], strict=True)]
        table.deals_done += 1
        fields += ["scores", "deals_done"]
    seated = Seat.objects.filter(table=table).count()
    if table.deals and table.deals_done >= table.deals:
        table.status = TableStatus.FINISHED
    elif seated < 5:
        table.status = TableStatus.FINISHED if table.deals == 0 else TableStatus.DISSOLVED
    elif any(game.trustee):
        table.status = TableStatus.DISSOLVED
    table.save(update_fields=fields)
    if table.status != TableStatus.PLAYING:
        return
    if game.status == GameStatus.VOID:
        _deal_start(
            table=table, start_seat=game.setup.get("start_seat", 0), context=game.setup.get("context")
        )
    else:
        _deal_start(table=table, start_seat=final["next_start_seat"], context=final)
