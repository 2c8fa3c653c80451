"""Writes to deals: start, a player's action end to end, trustee, vacating a seat, timeouts, bots, ratings.

Each service is one transaction that locks the game row (games/lock_objects.py) and applies actions
through games/actions.py, the one path for every actor (docs/architecture.md "One action", "Who
acts besides players"), recording every change on its unit of work (games/work.py), which writes
them in one flush and registers the one after-commit effect (actions.work_commit): wake-ups, the
next deadline, the trustee or bot continuation, the rating. The Celery tasks that wrap these
services are games/tasks.py, sent by name (games/scheduling.py).

Timer and bot services never trust their own arrival: they carry the version they were scheduled for
and do nothing once the game has moved on, so a late, early, duplicated or redelivered task is harmless.
"""

import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts import services as account_services
from accounts.models import RatingChange
from games import actions, clock, engine, seat_feed, selectors, timers
from games.deal_end import DealEnded
from games.lock_objects import game_lock, game_lock_for_task
from games.models import Game, GamePlayer, GameStatus
from games.work import GameWork
from infra import metrics, wakeups
from infra.api.errors import ApiError, ErrorCode
from infra.timestamps import utc_iso


def game_start(
    *, table: Any, number: int, setup: dict, seats: list[dict | None], feed_first: Callable | None = None
) -> Game:
    """Deal one deal of `table` (matchmaking calls this inside its transaction). `seats`: five
    `{"user_id", "username", "is_bot", "bot_account"?}` or None: `is_bot` says the server plays the
    seat, `bot_account` (default `is_bot`) that a bot account sits there (an integrator's bot plays
    through the API itself), which the player's history marks. `feed_first(game)` gives feed entries
    that come before the deal's own (the matcher's `ticket_matched`: the news of the table before the
    news of its deal). A seat given `"trustee": True` starts on 托管 (its player has not come back
    since the last deal, docs/rules.md §5 D) and acts as soon as it is prompted. Never ends the
    deal's flow itself: a deal void at dealing is returned as such and the caller (the table's deal
    step) decides what follows."""
    rules = selectors.rules_for(preset=table.preset, options=table.options)
    try:
        state = engine.new_deal(rules, **setup)
    except ValueError as exc:
        raise ApiError(ErrorCode.INVALID_REQUEST, f"Bad deal setup: {exc}") from exc
    # The seed the engine drew is kept so that setup + actions replay the deal.
    stored_setup = {**_jsonable_setup(setup), "seed": state.seed}
    game = Game(
        table=table,
        number=number,
        preset=table.preset,
        options=table.options,
        setup=stored_setup,
        state=engine.to_json(state),
        seat_user_ids=[seat["user_id"] if seat else None for seat in seats],
        players=[seat["username"] if seat else None for seat in seats],
        bots=[bool(seat and seat["is_bot"]) for seat in seats],
        left=[False] * 5,
        trustee=[bool(seat and seat.get("trustee")) for seat in seats],
        trustee_entries=[int(bool(seat and seat.get("trustee"))) for seat in seats],
    )
    game.deadline = actions.deadline_for(game=game, phase=state.phase)
    game.bots_due_at = actions.bots_due(game=game, state=state)
    # The one insert of a deal's row outside its unit of work: its id numbers what the work records.
    game.save()
    work = GameWork(game=game)
    GamePlayer.objects.bulk_create(
        GamePlayer(
            game=game,
            seat=seat,
            user_id=taken["user_id"],
            is_bot=bool(taken.get("bot_account", taken["is_bot"])),
        )
        for seat, taken in enumerate(seats)
        if taken
    )
    work.events_append(actions.event_rows(game=game, events=engine.opening_events(state)))
    if state.phase in actions.FINISHED_PHASES:
        game.status = GameStatus.VOID if state.phase == "void" else GameStatus.OVER
        game.final = engine.final_view(state)
        game.finished_at = timezone.now()
        game.deadline = None
        work.fields_changed("status", "final", "finished_at", "deadline")
    if feed_first is not None:
        work.feed_append(feed_first(game))
    work.feed_append(
        [
            (taken["user_id"], "deal_started", {"table": table.pk, "game": game.pk, "seat": seat})
            for seat, taken in enumerate(seats)
            if taken and not taken["is_bot"]
        ]
    )
    if game.status == GameStatus.RUNNING:
        actions.prompts_announce(work=work, state=state)
        _autoplay_and_commit(work=work)
    else:
        actions.work_commit(work=work, state=state)
    return game


def game_deal_take(*, game_id: int) -> DealEnded | None:
    """The table's side of a finished deal's outbox row (`Game.table_pending`): lock it, clear the
    mark and give its result, once; None when it was taken already (a retried task, the sweep and
    the task at once) or is not finished. Called inside the table's own transaction (matchmaking's
    deal-end step), before it locks the table: the game row first, as everywhere."""
    game = Game.objects.select_for_update().filter(pk=game_id, table_pending=True).first()
    if game is None:
        return None
    game.table_pending = False
    work = GameWork(game=game)
    work.fields_changed("table_pending")
    work.flush()
    work.commit(None)  # nothing to publish: the table's step publishes what it does with it
    return selectors.game_ended(game=game)



def _jsonable_setup(setup: dict) -> dict:
    """The deal setup as stored: a DealOutcome context is kept in its JSON form."""
    context = setup.get("context")
    if context is not None and hasattr(context, "to_json"):
        return {**setup, "context": context.to_json()}
    return setup


def _check_running(*, game: Game) -> None:
    if game.status != GameStatus.RUNNING:
        raise ApiError(ErrorCode.GAME_OVER, "This deal is over.")


def _seat_of(*, game: Game, user: Any) -> int:
    seat = selectors.game_seat_of(game=game, user=user)
    if seat is None:
        raise ApiError(ErrorCode.PERMISSION_DENIED, "You are not seated in this game.")
    return seat


def game_action_apply(*, game_id: int, user: Any, action: dict, expected_version: int | None = None) -> dict:
    """Apply one action of `user`'s seat; returns the caller's new view. A retry of the same request
    is recognised at the API edge (infra/api/idempotency.py), whose transaction may enclose this one."""
    try:
        parsed = engine.action_from_dict(action)
    except (ValueError, TypeError, KeyError) as exc:
        raise ApiError(ErrorCode.INVALID_REQUEST, f"Bad action: {exc}") from exc
    refused = None
    with wakeups.batched(), transaction.atomic():
        game = game_lock(game_id=game_id)
        work = GameWork(game=game)
        seat = _seat_of(game=game, user=user)
        _check_running(game=game)
        state = selectors.game_state(game=game)
        # docs/client-guide.md "Coming back": the player's own action takes his seat off 托管
        # (unless it is locked), and the seat stays his even when the action itself is refused
        # (托管 answered the prompt meanwhile): the take-back commits, then the refusal is raised.
        took_back = game.trustee[seat] and not actions.trustee_is_locked(game=game, seat=seat)
        if took_back:
            actions.trustee_switch(work=work, seat=seat, on=False)
        try:
            state = _action_apply_checked(
                work=work, seat=seat, state=state, action=parsed, expected_version=expected_version
            )
        except ApiError as exc:
            if not took_back:
                raise
            refused = exc
            actions.work_commit(work=work, state=state)
        else:
            autoplay = actions.trustee_autoplay(work=work, state=state)
            view = selectors.game_view_for_seat(game=game, seat=seat, state=autoplay.state)
            actions.work_commit(work=work, state=autoplay.state, autoplay_pending=autoplay.pending)
    if refused is not None:
        raise refused
    return view


def _action_apply_checked(
    *, work: GameWork, seat: int, state: Any, action: Any, expected_version: int | None
) -> Any:
    """The version rule, then the action: ApiError (stale version, or the engine's refusal) with
    nothing changed."""
    game = work.game
    current = expected_version is None or _version_current(game=game, state=state, expected=expected_version)
    if not current:
        raise ApiError(
            ErrorCode.STALE_VERSION,
            f"The game is at version {game.version}.",
            extra={"version": game.version},
        )
    try:
        return actions.action_record(work=work, seat=seat, state=state, action=action)
    except engine.IllegalAction as exc:
        raise ApiError(exc.code, exc.message) from exc


def _version_current(*, game: Game, state: Any, expected: int) -> bool:
    """Does the caller's `expected_version` still describe what it sees? The game's version exactly,
    except in an open window: there the other seats' answers are secret (docs/rules.md §2.5) and change
    nothing any seat sees, so every version since the window opened is current (API 1.3.0). Each
    answer is one applied action, one version: the window opened at `version - len(answers)`. An
    answer meant for an earlier prompt (the window before, the play before) is still stale."""
    if expected == game.version:
        return True
    window = state.window
    return window is not None and game.version - len(window.answers) <= expected < game.version


def _autoplay_and_commit(*, work: GameWork) -> None:
    """Inside the transaction: let trustee seats act, then write the work and register its effects."""
    autoplay = actions.trustee_autoplay(work=work, state=selectors.game_state(game=work.game))
    actions.work_commit(work=work, state=autoplay.state, autoplay_pending=autoplay.pending)


def game_trustee_set(*, game_id: int, user: Any, on: bool) -> dict:
    """Put the caller's seat on 托管 or take it off; after more than three entries it stays on (docs/rules.md
    §5)."""
    with transaction.atomic():
        game = game_lock(game_id=game_id)
        seat = _seat_of(game=game, user=user)
        _check_running(game=game)
        if game.trustee[seat] != on:
            if not on and actions.trustee_is_locked(game=game, seat=seat):
                raise ApiError(ErrorCode.TRUSTEE_LOCKED, "This seat entered trustee more than three times.")
        work = GameWork(game=game)
        if game.trustee[seat] != on:
            actions.trustee_switch(work=work, seat=seat, on=on)
        _autoplay_and_commit(work=work)
        view = selectors.game_view_for_seat(game=game, seat=seat)
    return view


def game_seat_vacate(*, game_id: int, seat: int, by: str = "left") -> None:
    """A player left a running deal (or was removed, or banned): the seat plays on in trustee,
    locked (docs/rules.md §5). The deal's record of who sat where does not change. `by`: `left`,
    or `moderator` (his `trustee` feed entry says which)."""
    with transaction.atomic():
        game = game_lock(game_id=game_id)
        if game.status != GameStatus.RUNNING or game.left[seat]:
            return
        game.left[seat] = True
        work = GameWork(game=game)
        work.fields_changed("left")
        actions.trustee_switch(work=work, seat=seat, on=True, locked=True, by=by)
        _autoplay_and_commit(work=work)


def game_seats_lock_trustee(*, game_id: int, user_id: int) -> None:
    """The seats of `user_id` in this running deal go on locked trustee at once (a ban), staying his."""
    with transaction.atomic():
        game = game_lock(game_id=game_id)
        if game.status != GameStatus.RUNNING:
            return
        work = GameWork(game=game)
        for seat, seat_user_id in enumerate(game.seat_user_ids):
            if seat_user_id == user_id:
                actions.trustee_switch(work=work, seat=seat, on=True, locked=True, by="moderator")
        _autoplay_and_commit(work=work)


def game_abort(*, game_id: int, reason: str) -> bool:
    """End a running deal at once, unscored and not rated, with a public `aborted` event (docs/moderation.md).
    False when the deal had already ended."""
    with transaction.atomic():
        game = game_lock(game_id=game_id)
        if game.status != GameStatus.RUNNING:
            return False
        state = selectors.game_state(game=game)
        work = GameWork(game=game)
        seat_feed.prompts_track(work=work, state=state)
        game.version += 1
        for seat in engine.to_act(state):
            seat_feed.prompt_closed(work=work, seat=seat, by=seat_feed.BY_ABORT)
        work.events_append(actions.event_rows(game=game, events=[{"type": "aborted", "reason": reason}]))
        actions.deal_finish(work=work, state=state, abort_reason=reason)
        actions.work_commit(work=work, state=state)
    return True


# --- Timers (docs/rules.md §5, docs/architecture.md "Time") ----------------------------------------------


def game_timer_fire(*, game_id: int, at: str) -> bool:
    """The deal's deadline task, sent for the due time `at` (games/timers.py). It does nothing if
    another task has replaced it; waits again if the deadline has moved later meanwhile; else times
    out the seats prompted now. False when nothing was timed out."""
    clock.timers_clock_tick()  # after an outage, deadlines move on before any is applied
    with wakeups.batched(), transaction.atomic():
        game = game_lock_for_task(game_id=game_id, running=False)  # a finished deal's timer_at is cleared
        if game is None:
            return False
        if game.timer_at is None or timers.timer_token(game.timer_at) != at:
            return False  # replaced, or a second delivery of a task that already ran
        work = GameWork(game=game)
        game.timer_at = None  # this task has come: none is in flight
        work.fields_changed("timer_at")
        if game.status != GameStatus.RUNNING or game.deadline is None:
            work.flush()
            work.commit(None)
            return False
        if game.deadline > timezone.now():
            # The deadline moved on since this task was sent (or the broker was early): wait again
            # (committed arms the task for it), and wake nobody: nothing they see changed.
            actions.work_commit(work=work, state=selectors.game_state(game=game), moved=False)
            return False
        return _deadline_expire_locked(work=work)


def game_deadline_expire(*, game_id: int, version: int) -> bool:
    """Time out every seat still prompted at `version` (the sweep, and deadline tasks sent before
    games/timers.py): each goes on trustee and plays its default (engine.trustee_action) through the
    same path as a move. False when there was nothing to do."""
    clock.timers_clock_tick()
    with wakeups.batched(), transaction.atomic():
        game = game_lock_for_task(game_id=game_id, version=version)
        if game is None or game.deadline is None:
            return False
        work = GameWork(game=game)
        if game.deadline > timezone.now():
            # Early (a clock ahead of ours, or a broker that delivered before the ETA): make sure
            # a task is due at the deadline rather than leave it to the sweep.
            actions.work_commit(work=work, state=selectors.game_state(game=game))
            return False
        return _deadline_expire_locked(work=work)


def _deadline_expire_locked(*, work: GameWork) -> bool:
    """The deadline of the locked, running game has passed: time out the seats prompted now."""
    game = work.game
    state = selectors.game_state(game=game)
    seats = engine.to_act(state)
    if not seats:
        work.flush()  # the timer's own field, if the timer's task came (game_timer_fire)
        work.commit(None)
        return False
    if not all(game.trustee[seat] for seat in seats):
        # (All on trustee already: an auto-play chain whose continuation was lost, not a timeout.)
        deadline = utc_iso(game.deadline)
        # (last_seq is saved with the trustee switch below.)
        work.events_append(actions.event_rows(game=game, events=[{"type": "timeout", "deadline": deadline}]))
    timed_out = [seat for seat in seats if not game.trustee[seat]]
    # A prompt with one legal answer (不表态 where nothing else is allowed, a forced decline or call) is
    # answered for the seat, which stays off 托管: ignoring a question without a choice costs nothing
    # (docs/rules.md §5). It was still asked and still timed out, so its timing told nobody anything.
    forced = [seat for seat in timed_out if len(engine.legal_actions(state, seat)) == 1]
    # Each timed-out seat's user is told what the timer did, then (below) how his prompt closed.
    seat_feed.prompts_track(work=work, state=state)
    for seat in timed_out:
        seat_feed.timeout_told(work=work, seat=seat, outcome="answered" if seat in forced else "trustee")
    for seat in forced:
        if seat in engine.to_act(state):
            (answer,) = engine.legal_actions(state, seat)
            state = actions.action_record(
                work=work, seat=seat, state=state, action=answer, by=seat_feed.BY_TIMER
            )
    prompted = engine.to_act(state)
    for seat in timed_out:
        if seat not in forced and seat in prompted:
            actions.trustee_switch(work=work, seat=seat, on=True, by="timeout")
    if timed_out:
        metrics.record_timeout(preset=game.preset, seats=len(timed_out))
    metrics.record_timer_lateness((timezone.now() - game.deadline).total_seconds())
    _autoplay_and_commit(work=work)
    return True


def game_trustee_autoplay(*, game_id: int, version: int) -> bool:
    """Seats on trustee that are prompted at `version` act now (the next MAX_AUTOPLAY_ACTIONS of them)."""
    with wakeups.batched(), transaction.atomic():
        game = game_lock_for_task(game_id=game_id, version=version)
        if game is None:
            return False
        work = GameWork(game=game)
        autoplay = actions.trustee_autoplay(work=work, state=selectors.game_state(game=game))
        if game.version == version:
            return False  # no trustee seat was prompted: nothing was recorded
        actions.work_commit(work=work, state=autoplay.state, autoplay_pending=autoplay.pending)
    return True


def games_deadlines_sweep(*, grace: float | None = None, limit: int = 500) -> int:
    """Apply deadlines that passed more than `grace` seconds ago (their task was lost or is late);
    returns how many games it moved on."""
    grace = settings.GAMES_SWEEP_GRACE if grace is None else grace
    clock.timers_clock_tick()  # the beat's sweep is the timers' heartbeat (games/clock.py)
    cutoff = timezone.now() - timedelta(seconds=grace)
    overdue = list(
        Game.objects.filter(status=GameStatus.RUNNING, deadline__lt=cutoff)
        .order_by("deadline")
        .values_list("pk", "version")[:limit]
    )
    return sum(game_deadline_expire(game_id=game_id, version=version) for game_id, version in overdue)


# --- Bots (docs/matchmaking.md, docs/architecture.md "Who acts besides players") ---------------------------


def games_bots_sweep(*, grace: float | None = None, limit: int = 500) -> int:
    """Bot seats whose task was lost (a broker restarted empty, a send that failed) act now rather
    than at their deadline: a deal whose bots were due more than `grace` seconds ago is asked to act
    (game_bots_act, which does nothing unless a bot is still prompted at that version). Returns how
    many deals moved on."""
    grace = settings.GAMES_SWEEP_GRACE if grace is None else grace
    overdue = list(
        Game.objects.filter(
            status=GameStatus.RUNNING, bots_due_at__lt=timezone.now() - timedelta(seconds=grace)
        )
        .order_by("bots_due_at")
        .values_list("pk", "version")[:limit]
    )
    return sum(game_bots_act(game_id=game_id, version=version) for game_id, version in overdue)


def game_bots_act(*, game_id: int, version: int) -> bool:
    """The bot seats prompted at `version` act, each by engine.bot_action on its own seat's
    engine.bot_view (the JSON a client of that seat is served, with the deal's public plays), at the
    table's bot level, through the same path as a player's move. A stale or
    duplicated task finds another version and does nothing."""
    with wakeups.batched(), transaction.atomic():
        game = game_lock_for_task(game_id=game_id, version=version)
        if game is None:
            return False
        state = selectors.game_state(game=game)
        seats = actions.bot_seats_prompted(game=game, state=state)
        if not seats:
            return False
        work = GameWork(game=game)
        # The table's bot level, else the server's (docs/bots.md); only seats the server plays
        # itself get here, never an integrator's bot account (docs/integrations.md).
        level = game.table.bot_level or settings.BOTS_LEVEL
        for seat in seats:
            if state.phase in actions.FINISHED_PHASES or seat not in engine.to_act(state):
                break
            # One rng per decision, seeded by the deal and the move: a replayed task decides alike.
            rng = random.Random(f"{game.pk}:{version}:{seat}")
            action = engine.bot_action(engine.bot_view(state, seat), level=level, rng=rng)
            state = actions.action_record(work=work, seat=seat, state=state, action=action)
            metrics.record_bot_action(preset=game.preset, type=action.type)
        _autoplay_and_commit(work=work)
    return True


# --- Ratings ----------------------------------------------------------------------------------------


def game_ratings_update(*, game_id: int) -> bool:
    """Rate a finished deal (accounts' per-preset openskill ratings) when the rule of
    docs/matchmaking.md "Rated deals" says so (selectors.game_unrated_reason), exactly once. A deal
    it judges unrated keeps the reason (`unrated_reason`: the players' history shows it, and the
    sweep passes it by). False when nothing was rated."""
    game = Game.objects.filter(pk=game_id).select_related("table__creator").first()
    if game is None or game.status == GameStatus.RUNNING:
        return False
    reason = selectors.game_unrated_reason(game=game)
    if reason is not None:
        Game.objects.filter(pk=game.pk, unrated_reason="").update(unrated_reason=reason)
        return False
    outcome = engine.deal_outcome(selectors.game_state(game=game))
    # The deal's seating never changes (a player who left is still the one who played his seat).
    user_ids = game.seat_user_ids
    emperor_score = sum(outcome.scores[seat] for seat in outcome.emperor_side)
    return account_services.ratings_record_deal(
        game_id=game.pk,
        preset=game.preset,
        emperor_side=[user_ids[seat] for seat in outcome.emperor_side],
        other_side=[user_ids[seat] for seat in outcome.other_side],
        result=(emperor_score > 0) - (emperor_score < 0),
    )


def games_ratings_sweep(*, older_than: float = 30, within: float = 3600, limit: int = 50) -> int:
    """Rate scored deals that ended between `within` and `older_than` seconds ago and have no rating
    yet: their task was lost (broker down at commit). Returns how many it rated."""
    now = timezone.now()
    unrated = (
        Game.objects.filter(
            status=GameStatus.OVER,
            unscored=False,
            finished_at__lt=now - timedelta(seconds=older_than),
            finished_at__gte=now - timedelta(seconds=within),
            table__rated=True,
            unrated_reason="",  # judged and not rated: nothing to make good
        )
        .exclude(pk__in=RatingChange.objects.values("game_id"))
        .order_by("finished_at")
        .values_list("pk", flat=True)[:limit]
    )
    return sum(game_ratings_update(game_id=game_id) for game_id in list(unrated))
