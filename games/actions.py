"""Applying actions to a locked game: the one path for moves, timeouts, 托管 and bots.

Every write service (games/services.py) locks the game row first (games/lock_objects.py), then comes
here: `action_record` applies one engine action and appends its events; `trustee_autoplay` lets the
seats on 托管 answer what they are prompted; `deal_finish` records the end of a deal and leaves it
for its table (`Game.table_pending`, an outbox row that matchmaking takes in a step of its own after
the commit: games never calls into the table's flow). `committed` decides
what a committed change must trigger (wake-ups, the next deadline, a trustee or bot continuation),
and `work_commit` writes the change and registers that. The tasks are sent by name
(games/scheduling.py), so this module never imports the tasks that wrap the services built on it.

Nothing here writes a row: every change (event rows, the game's fields, feed entries, webhook
messages' delivery) is recorded on the transaction's unit of work (games/work.py), passed to every
function here, which writes it all in one `flush()` and registers its one after-commit effect.
"""

import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from accounts.webhooks.outbox import webhook_messages_write
from games import engine, seat_feed, selectors, timers
from games.models import Event, Game, GameStatus
from games.work import Committed, GameWork
from infra import metrics
from infra.timestamps import utc_iso

FINISHED_PHASES = (engine.Phase.OVER, engine.Phase.VOID)
# Trustee actions applied in one transaction (about 1.5 ms each). A longer chain (a deal whose five
# seats are all on trustee plays some 300 of them) goes on in a task after the commit, so that neither
# a player's request nor the worker holds the game, or delays other games' timers, for long.
MAX_AUTOPLAY_ACTIONS = 25


def deadline_for(*, game: Game, phase: str) -> Any:
    if phase in FINISHED_PHASES:
        return None
    seconds = game.table.play_seconds if phase == "play" else game.table.prompt_seconds
    return timezone.now() + timedelta(seconds=seconds)


def same_prompt(*, before: Any, after: Any) -> bool:
    """The action answered part of a still-open window: the window keeps its deadline (docs/rules.md §5:
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


def deadline_next(*, game: Game, before: Any, after: Any) -> Any:
    if game.deadline is not None and same_prompt(before=before, after=after):
        return game.deadline
    return deadline_for(game=game, phase=after.phase)


def event_rows(*, game: Game, events: list[dict], action: list | None = None) -> list[Event]:
    """Rows for `events`, numbered after the game's last seq (the caller saves `last_seq`)."""
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


def _appended_entries(work: GameWork) -> tuple[int, tuple[dict, ...]] | None:
    """The log entries this transaction appended to `game`, as a read of the log gives them, with the
    seq they follow; None when that is not known for certain: no rows came through `GameWork.events_append`
    (a change without events is rare, and a row written another way must not be claimed absent),
    or they do not end at the game's last seq. None sends a bare wake-up: streams read the log."""
    rows, work.appended = work.appended, []
    if not rows:
        return None
    after = rows[0].seq - 1
    numbered = [row.seq for row in rows] == list(range(after + 1, after + 1 + len(rows)))
    if not numbered or rows[-1].seq != work.game.last_seq:
        return None
    return after, tuple({**row.data, "seq": row.seq} for row in rows)


def _action_step(*, work: GameWork, seat: int, state: Any, action: Any, by: str) -> tuple[Any, list[Event]]:
    """The engine step of one action: the new state and its event rows (not saved yet), and the
    seat's `prompt_closed` entry (`by` whom) if it had been told of its prompt; raises
    engine.IllegalAction with nothing changed."""
    game = work.game
    seat_feed.prompts_track(work=work, state=state)
    started = time.perf_counter()
    new_state, events = engine.apply_action(state, seat, action)
    metrics.record_action(preset=game.preset, type=action.type, seconds=time.perf_counter() - started)
    game.version += 1
    if not events:
        # Every applied action leaves a row, so the log alone replays the deal; only the actor
        # sees it (a window answer must not tell others who answered).
        events = [{"type": "answered", "seat": seat, "private_to": [seat]}]
    rows = event_rows(game=game, events=events, action=[seat, engine.action_to_dict(action)])
    game.deadline = deadline_next(game=game, before=state, after=new_state)
    # A seat's own action always ends its prompt (a window waits for every seat it asks).
    seat_feed.prompt_closed(work=work, seat=seat, by=by)
    return new_state, rows


def _persist(*, work: GameWork, before: Any, state: Any, rows: list[Event]) -> None:
    game = work.game
    game.state = engine.to_json(state)
    finished = state.phase in FINISHED_PHASES
    # The new prompt's `your_turn` entries come after the entries the transaction recorded on the
    # way (`prompt_closed`, `trustee`, `timeout`): a user's feed keeps that order.
    announced = not finished and not same_prompt(before=before, after=state)
    prompts = prompt_entries(game=game, state=state) if announced else []
    seat_feed.prompts_told(work=work, seats=[entry[2]["seat"] for entry in prompts])
    work.feed_append(prompts)
    game.bots_due_at = bots_due(game=game, state=state)
    work.events_append(rows)
    work.fields_changed("state", "version", "deadline", "bots_due_at")
    if finished:
        deal_finish(work=work, state=state)


def prompt_entries(*, game: Game, state: Any) -> list[tuple[int, str, dict]]:
    """A `your_turn` entry for the feed of each player a new prompt asks to act (docs/matchmaking.md). Not
    for bots, seats on trustee (they act at once) or players who left; not for the rest of a window
    that one seat has just answered (the others' prompt is the same one: see `_persist`).

    Each entry carries the seat's `legal_actions` at that version, as its view lists them (its own
    cards only, addressed to its own feed): a client that follows its deal's log can answer the
    prompt without reading its view first, a round trip and half the requests of a table fewer."""
    deadline = utc_iso(game.deadline)
    return [
        (
            game.seat_user_ids[seat],
            "your_turn",
            {
                "game": game.pk,
                "table": game.table_id,
                "seat": seat,
                "version": game.version,
                "deadline": deadline,
                "legal_actions": [action.to_dict() for action in engine.legal_actions(state, seat)],
            },
        )
        for seat in engine.to_act(state)
        if seat_feed.seat_is_told(game=game, seat=seat)
    ]


def prompts_announce(*, work: GameWork, state: Any) -> None:
    """Record the `your_turn` entries of the prompt `state` makes (a deal's first, which no move
    made)."""
    work.feed_append(prompt_entries(game=work.game, state=state))


def action_record(
    *, work: GameWork, seat: int, state: Any, action: Any, by: str = seat_feed.BY_YOU
) -> Any:
    """Apply one action of `seat` to the locked game and persist it (events, version, deadline);
    raises engine.IllegalAction, changing nothing. Moves, timeouts, 托管 and bots all come here;
    `by`: who answered, as the seat's `prompt_closed` entry tells it (a player: `you`)."""
    new_state, rows = _action_step(work=work, seat=seat, state=state, action=action, by=by)
    _persist(work=work, before=state, state=new_state, rows=rows)
    return new_state


@dataclass(frozen=True)
class Autoplay:
    state: Any
    pending: bool  # the chain stopped at MAX_AUTOPLAY_ACTIONS with trustee seats still prompted


def trustee_autoplay(*, work: GameWork, state: Any) -> Autoplay:
    """Seats on 托管 act as soon as they are prompted (docs/rules.md §5), in the caller's locked transaction.

    A chain of trustee actions (a whole deal when all five are on trustee) is saved once at its end:
    one insert of its events and one update of the state, not one of each per action."""
    game = work.game
    rows: list[Event] = []
    applied = 0
    pending = False
    before = state
    while state.phase not in FINISHED_PHASES:
        seats = [seat for seat in engine.to_act(state) if game.trustee[seat]]
        if not seats:
            break
        if applied >= MAX_AUTOPLAY_ACTIONS:
            pending = True
            break
        action = engine.trustee_action(state, seats[0])
        # A seat the timer put on 托管 in this transaction: its prompt was closed by the timer.
        by = seat_feed.BY_TIMER if work.trustee_by.get(seats[0]) == "timeout" else seat_feed.BY_TRUSTEE
        state, action_rows = _action_step(work=work, seat=seats[0], state=state, action=action, by=by)
        rows += action_rows
        applied += 1
    if applied:
        metrics.record_trustee_action(preset=game.preset, count=applied)
    if rows:
        _persist(work=work, before=before, state=state, rows=rows)
    return Autoplay(state=state, pending=pending)


def trustee_switch(
    *, work: GameWork, seat: int, on: bool, locked: bool = False, by: str = "request"
) -> None:
    """Put `seat` on 托管 or take it off, with its public `trustee` event and its user's `trustee`
    feed entry (`by`: one of seat_feed.TRUSTEE_BY). `locked`: it may not come back (more than three
    entries is the same lock, docs/rules.md §5)."""
    game = work.game
    seat_feed.prompts_track(work=work, state=selectors.game_state(game=game))
    was_locked = trustee_is_locked(game=game, seat=seat)
    if locked:
        game.trustee_entries[seat] = max(game.trustee_entries[seat], 4)
    changed = game.trustee[seat] != on
    if changed:
        game.trustee[seat] = on
        if on:
            game.trustee_entries[seat] += 1
            work.trustee_by[seat] = by
        event = {"type": "trustee", "seat": seat, "on": on}
        work.events_append(event_rows(game=game, events=[event]))
    now_locked = trustee_is_locked(game=game, seat=seat)
    if changed or now_locked != was_locked:
        seat_feed.trustee_told(work=work, seat=seat, on=on, locked=now_locked, by=by)
    work.fields_changed("trustee", "trustee_entries")


def trustee_is_locked(*, game: Game, seat: int) -> bool:
    return game.trustee_entries[seat] > 3


def deal_finish(*, work: GameWork, state: Any, abort_reason: str | None = None) -> None:
    """Record the end of a deal on the locked game and leave it for its table: `table_pending` marks it
    until matchmaking's deal-end step has taken it (sent after the commit, `Committed.deal_ended`;
    the beat sweep takes any whose task was lost). Nothing of the table's flow runs here.

    An aborted deal (a moderator's decision, docs/moderation.md; `abort_reason` given) has no result:
    its final view is the deal as it stood (engine.aborted_view), with the reason (docs/client-guide.md)."""
    game = work.game
    aborted = abort_reason is not None
    void = not aborted and state.phase == "void"
    if aborted:
        game.status = GameStatus.ABORTED
        game.final = {**engine.aborted_view(state), "abort_reason": abort_reason}
    else:
        game.status = GameStatus.VOID if void else GameStatus.OVER
        game.final = engine.final_view(state)
    game.finished_at = timezone.now()
    game.deadline = None
    # docs/rules.md §5: all five on trustee → kept, but not scored and not rated. An aborted deal neither.
    game.unscored = aborted or (not void and all(game.trustee))
    game.table_pending = True
    work.fields_changed(
        "status", "final", "finished_at", "deadline", "state", "version", "unscored", "table_pending"
    )
    # Webhooks (docs/integrations.md): the final view, to the table's creator, players and staff;
    # their delivery is sent with the work's after-commit effect.
    if not aborted:
        work.webhooks_queued(
            webhook_messages_write(
                event="game.over",
                data=selectors.game_final_view(game=game),
                user_ids=[*game.seat_user_ids, game.table.creator_id],
                table_id=game.table_id,
            )
        )
    outcome = "aborted" if aborted else "void" if void else "unscored" if game.unscored else "over"
    metrics.record_deal_end(preset=game.preset, outcome=outcome)


def bots_due(*, game: Game, state: Any) -> Any:
    """When the bots prompted by `state` act (their task's countdown from now), or None."""
    if not bot_seats_prompted(game=game, state=state):
        return None
    return timezone.now() + timedelta(seconds=settings.BOTS_DELAY_SECONDS)


def bot_seats_prompted(*, game: Game, state: Any) -> tuple[int, ...]:
    """The seats a bot plays that are prompted now (not on trustee, not left)."""
    if game.status != GameStatus.RUNNING:
        return ()
    bots = game.bots or [False] * 5
    return tuple(
        seat
        for seat in engine.to_act(state)
        if bots[seat] and not game.trustee[seat] and not game.left[seat]
    )


def committed(*, work: GameWork, state: Any, autoplay_pending: bool = False, moved: bool = True) -> Committed:
    """Inside the transaction, after the change: what to trigger once it commits. The one place the
    deal's deadline task is armed, when the one in flight does not cover the new deadline
    (games/timers.py). `moved`: False for a change nobody sees (a timer that came early and waits
    again): no wake-up, no bot task."""
    game = work.game
    running = game.status == GameStatus.RUNNING
    work.state = state
    appended = _appended_entries(work)
    armed = timers.timer_arm(game=game) if running and not autoplay_pending else None
    if armed is not None:
        work.fields_changed("timer_at")
    return Committed(
        game_id=game.pk,
        version=game.version,
        running=running,
        deadline=game.deadline,
        autoplay_pending=autoplay_pending,
        bot_seats=bot_seats_prompted(game=game, state=state) if moved and not autoplay_pending else (),
        rate=game.status == GameStatus.OVER and not game.unscored,
        timer_at=armed,
        log_after=appended[0] if appended else 0,
        log_entries=appended[1] if appended else None,
        deal_ended=game.table_pending,
        wake=moved,
    )


def work_commit(*, work: GameWork, state: Any, autoplay_pending: bool = False, moved: bool = True) -> None:
    """End a change to the locked game: decide what its commit triggers (`committed`), write
    everything the unit of work recorded (one `flush`) and register its one after-commit effect."""
    change = committed(work=work, state=state, autoplay_pending=autoplay_pending, moved=moved)
    work.flush()
    work.commit(change)
