"""Writes to deals: start, one action end to end, trustee, vacating a seat.

A move (ARCHITECTURE.md "One action"): one transaction; lock the game row; check seat, status and
expected_version; engine.apply_action; append the events with the next seq; save with update_fields;
record the idempotency key with the response; after commit, wake waiters (_after_action_committed).
"""

import hashlib
import json
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from config.api.errors import ApiError, ErrorCode
from games import engine, selectors, wakeups
from games.lock_objects import game_lock
from games.models import Event, Game, GameStatus, IdempotencyKey

FINISHED_PHASES = ("over", "void")
# A table of nothing but void deals would otherwise redeal forever inside one transaction.
MAX_VOID_REDEALS = 50
# Trustee actions applied in one transaction (about 1.5 ms each). A longer chain (a deal whose five
# seats are all on trustee plays some 300 of them) goes on in a task after the commit, so that neither
# a player's request nor the worker holds the game, or delays other games' timers, for long.
MAX_AUTOPLAY_ACTIONS = 25


def _deadline(*, game: Game, phase: str) -> Any:
    if phase in FINISHED_PHASES:
        return None
    seconds = game.table.play_seconds if phase == "play" else game.table.prompt_seconds
    return timezone.now() + timedelta(seconds=seconds)


def _same_prompt(*, before: Any, after: Any) -> bool:
    """The action answered part of a still-open window: the window keeps its deadline (RULES §5:
    one deadline per prompt, and a window is one prompt to all the seats it asks)."""
    old, new = before.window, after.window
    return (
        old is not None
        and new is not None
        and before.phase == after.phase
        and old.kind == new.kind
        and old.asked == new.asked
        and new.answers[: len(old.answers)] == old.answers
        and len(new.answers) > len(old.answers)
    )


def _deadline_next(*, game: Game, before: Any, after: Any) -> Any:
    if game.deadline is not None and _same_prompt(before=before, after=after):
        return game.deadline
    return _deadline(game=game, phase=after.phase)


def _events_rows(*, game: Game, events: list[dict], action: list | None) -> list[Event]:
    rows = []
    for index, event in enumerate(events):
        game.last_seq += 1
        rows.append(
            Event(
                game=game,
                seq=game.last_seq,
                type=str(event.get("type", "")),
                data=event,
                action=action if index == 0 else None,
                version=game.version,
            )
        )
    return rows


def game_start(
    *, table: Any, number: int, setup: dict, seat_user_ids: list[int | None], players: list[str]
) -> Game:
    """Deal one deal of `table` (called by matchmaking inside its transaction)."""
    rules = selectors.rules_for(preset=table.preset, options=table.options)
    try:
        state = engine.new_deal(rules, **setup)
    except ValueError as exc:
        raise ApiError(ErrorCode.INVALID_REQUEST, f"Bad deal setup: {exc}") from exc
    # The seed the engine drew is kept so that setup + actions replay the deal.
    stored_setup = {**setup, "seed": state.seed}
    game = Game(
        table=table,
        number=number,
        preset=table.preset,
        options=table.options,
        setup=stored_setup,
        state=engine.to_json(state),
        seat_user_ids=list(seat_user_ids),
        players=list(players),
        trustee=[False] * 5,
        trustee_entries=[0] * 5,
    )
    game.deadline = _deadline(game=game, phase=state.phase)
    game.save()
    Event.objects.bulk_create(_events_rows(game=game, events=engine.opening_events(state), action=None))
    game.save(update_fields=["last_seq"])
    if state.phase in FINISHED_PHASES:
        _deal_finish(game=game, state=state)
    transaction.on_commit(lambda: _after_action_committed(game))
    return game


def _deal_finish(*, game: Game, state: Any) -> None:
    """Record the result; the table (matchmaking) then scores it and deals the next deal."""
    game.status = GameStatus.VOID if state.phase == "void" else GameStatus.OVER
    game.final = engine.final_view(state)
    game.finished_at = timezone.now()
    game.deadline = None
    # RULES §5: all five on trustee → kept, but not scored and not rated.
    game.unscored = game.status == GameStatus.OVER and all(game.trustee)
    game.save(
        update_fields=[
            "status", "final", "finished_at", "deadline", "state", "version", "last_seq", "unscored"
        ]
    )
    if game.status == GameStatus.OVER and not game.unscored:
        game_id = game.pk
        transaction.on_commit(lambda: _game_ratings_schedule(game_id=game_id))
    if game.status == GameStatus.VOID and game.number >= MAX_VOID_REDEALS + game.table.deals_done:
        return
    import_string(settings.GAMES_DEAL_FINISHED_HANDLER)(game=game)


def _request_hash(*, game_id: int, payload: dict) -> str:
    canonical = json.dumps({"game": game_id, **payload}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def game_action_apply(
    *,
    game_id: int,
    user: Any,
    action: dict,
    expected_version: int | None = None,
    idempotency_key: str | None = None,
) -> tuple[int, dict]:
    """Apply one action of `user`'s seat; returns (status, the caller's new view).

    With an idempotency key, the same key and body replay the stored response and another body is
    `idempotency_key_reused`. Only successful responses are stored: a failed request changed nothing,
    so repeating it is already safe.
    """
    try:
        parsed = engine.action_from_dict(action)
    except (ValueError, TypeError, KeyError) as exc:
        raise ApiError(ErrorCode.INVALID_REQUEST, f"Bad action: {exc}") from exc
    request_hash = _request_hash(
        game_id=game_id, payload={"action": action, "expected_version": expected_version}
    )
    try:
        with transaction.atomic():
            game = game_lock(game_id=game_id)
            if idempotency_key is not None:
                stored = IdempotencyKey.objects.filter(user=user, key=idempotency_key).first()
                if stored is not None:
                    if stored.request_hash != request_hash:
                        raise ApiError(
                            ErrorCode.IDEMPOTENCY_KEY_REUSED,
                            "This Idempotency-Key was used with another request.",
                        )
                    return stored.status_code, stored.body
            seat = selectors.game_seat_of(game=game, user=user)
            if seat is None:
                raise ApiError(ErrorCode.PERMISSION_DENIED, "You are not seated in this game.")
            if game.status != GameStatus.RUNNING:
                raise ApiError(ErrorCode.GAME_OVER, "This deal is over.")
            if expected_version is not None and expected_version != game.version:
                raise ApiError(
                    ErrorCode.STALE_VERSION,
                    f"The game is at version {game.version}.",
                    extra={"version": game.version},
                )
            state = selectors.game_state(game=game)
            try:
                new_state = _action_record(game=game, seat=seat, state=state, action=parsed)
            except engine.IllegalAction as exc:
                raise ApiError(exc.code, exc.message) from exc
            new_state = _trustee_autoplay(game=game, state=new_state)
            body = selectors.game_view_for_seat(game=game, seat=seat, state=new_state)
            if idempotency_key is not None:
                IdempotencyKey.objects.create(
                    user=user, key=idempotency_key, request_hash=request_hash, status_code=200, body=body
                )
            transaction.on_commit(lambda: _after_action_committed(game))
    except IntegrityError as exc:
        # The same key was stored meanwhile by a request for another game (same-game requests are
        # serialized by the row lock); this transaction has been rolled back.
        if (
            idempotency_key is not None
            and IdempotencyKey.objects.filter(user=user, key=idempotency_key).exists()
        ):
            raise ApiError(
                ErrorCode.IDEMPOTENCY_KEY_REUSED, "This Idempotency-Key was used with another request."
            ) from exc
        raise
    return 200, body


def _action_record(*, game: Game, seat: int, state: Any, action: Any) -> Any:
    """Apply one action of `seat` to the locked `game` and persist it (events, version, deadline);
    raises engine.IllegalAction, changing nothing. Real moves, timeouts and 托管 all come here."""
    new_state, rows = _action_step(game=game, seat=seat, state=state, action=action)
    _actions_persist(game=game, state=new_state, rows=rows)
    return new_state


def _action_step(*, game: Game, seat: int, state: Any, action: Any) -> tuple[Any, list[Event]]:
    """The engine step of one action: the new state and its event rows (not saved yet)."""
    new_state, events = engine.apply_action(state, seat, action)
    game.version += 1
    if not events:
        # Every applied action leaves a row, so the log alone replays the deal; only the actor
        # sees it (a window answer must not tell others who answered).
        events = [{"type": "answered", "seat": seat, "private_to": [seat]}]
    rows = _events_rows(game=game, events=events, action=[seat, engine.action_to_dict(action)])
    game.deadline = _deadline_next(game=game, before=state, after=new_state)
    return new_state, rows


def _actions_persist(*, game: Game, state: Any, rows: list[Event]) -> None:
    Event.objects.bulk_create(rows)
    game.state = engine.to_json(state)
    game.save(update_fields=["state", "version", "deadline", "last_seq"])
    selectors.game_state_remember(game=game, state=state)
    if state.phase in FINISHED_PHASES:
        _deal_finish(game=game, state=state)


def _trustee_autoplay(*, game: Game, state: Any) -> Any:
    """Seats on 托管 act as soon as they are prompted (RULES §5), in the caller's locked transaction.

    A chain of trustee actions (a whole deal when all five are on trustee) is saved once at its end:
    one insert of its events and one update of the state, not one of each per action."""
    rows: list[Event] = []
    applied = 0
    game.autoplay_pending = False
    while state.phase not in FINISHED_PHASES:
        seats = [seat for seat in engine.to_act(state) if game.trustee[seat]]
        if not seats:
            break
        if applied >= MAX_AUTOPLAY_ACTIONS:
            # _after_action_committed schedules the rest (timers.game_trustee_autoplay).
            game.autoplay_pending = True
            break
        action = engine.trustee_action(state, seats[0])
        state, action_rows = _action_step(game=game, seat=seats[0], state=state, action=action)
        rows += action_rows
        applied += 1
    if rows:
        _actions_persist(game=game, state=state, rows=rows)
    return state


def _game_ratings_schedule(*, game_id: int) -> None:
    from games import timers  # timers builds on this module

    timers.game_ratings_schedule(game_id=game_id)


def _after_action_committed(game: Game) -> None:
    """Side effects of a committed change to `game` (a move, a deal start, trustee).

    The place to extend: the timers (games/timers.py, games/tasks.py) schedule the next deadline
    from here. Waiters on the events endpoint are woken with the version only.
    """
    wakeups.publish(game_id=game.pk, version=game.version)
    if game.status != GameStatus.RUNNING:
        return
    from games import timers  # timers builds on this module

    if getattr(game, "autoplay_pending", False):
        timers.game_autoplay_schedule(game_id=game.pk, version=game.version)
    elif game.deadline is not None:
        timers.game_timer_schedule(game_id=game.pk, version=game.version, deadline=game.deadline)


def game_trustee_set(*, game_id: int, user: Any, on: bool) -> dict:
    """Put the caller's seat on 托管 or take it off; after more than three entries it stays on (RULES §5)."""
    with transaction.atomic():
        game = game_lock(game_id=game_id)
        seat = selectors.game_seat_of(game=game, user=user)
        if seat is None:
            raise ApiError(ErrorCode.PERMISSION_DENIED, "You are not seated in this game.")
        if game.status != GameStatus.RUNNING:
            raise ApiError(ErrorCode.GAME_OVER, "This deal is over.")
        if game.trustee[seat] != on:
            if not on and game.trustee_entries[seat] > 3:
                raise ApiError(ErrorCode.TRUSTEE_LOCKED, "This seat entered trustee more than three times.")
            _trustee_switch(game=game, seat=seat, on=on)
            if on:
                _trustee_autoplay(game=game, state=selectors.game_state(game=game))
        view = selectors.game_view_for_seat(game=game, seat=seat)
        transaction.on_commit(lambda: _after_action_committed(game))
    return view


def _trustee_switch(*, game: Game, seat: int, on: bool) -> None:
    game.trustee[seat] = on
    if on:
        game.trustee_entries[seat] += 1
    Event.objects.bulk_create(
        _events_rows(game=game, events=[{"type": "trustee", "seat": seat, "on": on}], action=None)
    )
    game.save(update_fields=["trustee", "trustee_entries", "last_seq"])


def game_seat_vacate(*, game_id: int, seat: int) -> None:
    """A player left a running deal: the seat plays on in trustee, locked (RULES §5)."""
    with transaction.atomic():
        game = game_lock(game_id=game_id)
        if game.status != GameStatus.RUNNING or game.seat_user_ids[seat] is None:
            return
        game.seat_user_ids[seat] = None
        game.trustee_entries[seat] = max(game.trustee_entries[seat], 4)
        if not game.trustee[seat]:
            _trustee_switch(game=game, seat=seat, on=True)
        game.save(update_fields=["seat_user_ids", "trustee_entries"])
        _trustee_autoplay(game=game, state=selectors.game_state(game=game))
        transaction.on_commit(lambda: _after_action_committed(game))


EMPEROR_SIDE_ROLES = ("emperor", "guard", "soloist")


def game_ratings_update(*, game_id: int) -> bool:
    """Rate a finished, scored deal (accounts' per-preset openskill ratings); False when there is
    nothing to do: not over, void, unscored (RULES §5), or already rated (exactly once per deal)."""
    from django.contrib.auth import get_user_model

    from accounts import services as account_services

    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != GameStatus.OVER or game.unscored or not game.final:
        return False
    final = game.final
    emperor_seats = [seat for seat, role in enumerate(final.get("roles") or []) if role in EMPEROR_SIDE_ROLES]
    if not emperor_seats and final.get("emperor") is not None:
        emperor_seats = [final["emperor"]]
    other_seats = [seat for seat in range(5) if seat not in emperor_seats]
    if not emperor_seats or not other_seats:
        return False
    # A player who left mid-deal no longer has a seat in `seat_user_ids`, but is rated all the same:
    # the usernames recorded when the deal started name him.
    named = get_user_model().objects.filter(username__in=[p for p in game.players if p])
    ids_by_name = dict(named.values_list("username", "pk"))
    user_ids = [game.seat_user_ids[seat] or ids_by_name.get(game.players[seat]) for seat in range(5)]
    if any(user_id is None for user_id in user_ids):
        return False
    emperor_score = sum(final["scores"][seat] for seat in emperor_seats)
    return account_services.ratings_record_deal(
        game_id=game.pk,
        preset=game.preset,
        emperor_side=[user_ids[seat] for seat in emperor_seats],
        other_side=[user_ids[seat] for seat in other_seats],
        result=(emperor_score > 0) - (emperor_score < 0),
    )


def games_ratings_sweep(*, older_than: float = 30, within: float = 3600, limit: int = 50) -> int:
    """Rate scored deals that ended between `within` and `older_than` seconds ago and have no rating
    yet: their task was lost (broker down at commit). Returns how many it rated."""
    from accounts.models import RatingChange

    now = timezone.now()
    unrated = (
        Game.objects.filter(
            status=GameStatus.OVER,
            unscored=False,
            finished_at__lt=now - timedelta(seconds=older_than),
            finished_at__gte=now - timedelta(seconds=within),
        )
        .exclude(pk__in=RatingChange.objects.values("game_id"))
        .order_by("finished_at")
        .values_list("pk", flat=True)[:limit]
    )
    return sum(game_ratings_update(game_id=game_id) for game_id in list(unrated))


def game_seat_trustee_lock(*, game_id: int, seat: int) -> None:
    """The seat's player may no longer act (a moderator banned him): the seat plays on in trustee at
    once, locked for the rest of the deal (RULES §5: more than three entries), still his seat."""
    with transaction.atomic():
        game = game_lock(game_id=game_id)
        if game.status != GameStatus.RUNNING:
            return
        if not game.trustee[seat]:
            _trustee_switch(game=game, seat=seat, on=True)
        game.trustee_entries[seat] = max(game.trustee_entries[seat], 4)
        game.save(update_fields=["trustee_entries"])
        _trustee_autoplay(game=game, state=selectors.game_state(game=game))
        transaction.on_commit(lambda: _after_action_committed(game))


def game_abort(*, game_id: int, reason: str, moderator: Any) -> Game:
    """A moderator ends a running deal now (CONTRACT §6): an `aborted {reason}` event, no scores, no
    rating (`unscored`), no next deal (the caller, matchmaking, closes the table). The deal's cards
    stay hidden: there is no final view."""
    with transaction.atomic():
        game = game_lock(game_id=game_id)
        if game.status != GameStatus.RUNNING:
            raise ApiError(ErrorCode.GAME_OVER, "This deal is over.")
        Event.objects.bulk_create(
            _events_rows(game=game, events=[{"type": "aborted", "reason": reason}], action=None)
        )
        game.status = GameStatus.OVER
        game.unscored = True
        game.deadline = None
        game.finished_at = timezone.now()
        game.save(update_fields=["status", "unscored", "deadline", "finished_at", "last_seq"])
        transaction.on_commit(lambda: _after_action_committed(game))
    return game
