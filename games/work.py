"""The unit of work of one transaction on a locked game: the only writer of a deal's rows.

A write service locks a game row (games/lock_objects.py) and wraps it in a `GameWork`. Everything the
transaction changes is recorded on it, not written where it happens (games/actions.py records, the
engine decides):

- `events_append`: event rows (numbered by `Game.last_seq`), which the commit's wake-up also carries
  to open streams;
- `fields_changed`: the game row's fields set on `work.game` (the version, the state, the deadline,
  the timer's due time, 托管, the deal's end);
- `feed_append`: entries for the seat users' feeds (games/seat_feed.py, `your_turn`);
- `webhooks_queued`: outbox messages written for the deal's end, whose delivery is sent after commit;
- `state`: the engine state the game is left in (kept in the state cache once committed).

The service then calls `flush()` once: one statement on PostgreSQL (games/writes.py: the event rows'
insert, the feed entries' numbering and insert, the game row's update, each built by its table's own
builder), and `commit(change)` once: the one `infra.commit.on_commit` of the transaction, which
publishes the feeds' and the game's wake-ups, hands the pushable entries to push and sends the tasks
(`Committed`: what to send is decided inside the transaction, games/actions.py `committed`).
tests/test_one_writer.py fails if a game, event or feed row is written, or an after-commit effect
registered, anywhere else on a move's path.

Nothing of this is kept on the model instance: the row is data, the transaction's bookkeeping is here.
"""

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from accounts.feed import FeedAppended, feed_publish
from accounts.webhooks.outbox import deliveries_schedule
from games import scheduling, selectors, writes
from games.models import Event, Game
from infra import commit, wakeups


@dataclass(frozen=True)
class Committed:
    """What a committed change to a game must trigger, decided inside the transaction
    (games/actions.py `committed`)."""

    game_id: int
    version: int
    running: bool
    deadline: Any
    autoplay_pending: bool = False
    bot_seats: tuple[int, ...] = ()
    rate: bool = False
    timer_at: Any = None  # the ETA of a deadline task to send (games/timers.py), or None
    # The log entries the change appended after seq `log_after` (for the wake-up), or None: unknown.
    log_after: int = 0
    log_entries: tuple[dict, ...] | None = None
    # The change finished the deal: its table's deal-end step is sent once the commit is done.
    deal_ended: bool = False
    # Followers of the game are woken (False: the change moved nothing they see, only a timer).
    wake: bool = True


@dataclass(eq=False)
class GameWork:
    game: Game
    rows: list[Event] = field(default_factory=list)  # appended, not written yet
    fields: set[str] = field(default_factory=set)  # changed on `game`, not written yet
    feed: list[tuple[int, str, dict]] = field(default_factory=list)  # not written yet
    appended: list[Event] = field(default_factory=list)  # every row appended (the wake-up's entries)
    fed: list[FeedAppended] = field(default_factory=list)  # written, published after commit
    webhook_messages: list[int] = field(default_factory=list)
    state: Any = None
    announced: set[int] | None = None  # None: not looked at yet (games/seat_feed.py prompts_track)
    trustee_by: dict[int, str] = field(default_factory=dict)

    def events_append(self, rows: list[Event]) -> None:
        """New event rows of the game (from games/actions.py `event_rows`, which moved `last_seq`)."""
        self.rows.extend(rows)
        self.appended.extend(rows)
        self.fields.add("last_seq")

    def fields_changed(self, *names: str) -> None:
        """These fields of `game` were set and are to be saved."""
        self.fields.update(names)

    def feed_append(self, entries: list[tuple[int, str, dict]]) -> None:
        """`(user_id, type, data)` entries for users' feeds, numbered in this order per user."""
        self.feed.extend(entries)

    def webhooks_queued(self, message_ids: list[int]) -> None:
        self.webhook_messages.extend(message_ids)

    def flush(self) -> None:
        """Write what was recorded since the last flush: the event rows, the game's changed fields and
        the feed entries, in one statement on PostgreSQL (games/writes.py `game_write`)."""
        rows, self.rows = self.rows, []
        names, self.fields = tuple(sorted(self.fields)), set()
        feed, self.feed = self.feed, []
        fed = writes.game_write(game=self.game, rows=rows, names=names, feed=feed)
        if fed is not None:
            self.fed.append(fed)

    def commit(self, change: Committed | None) -> None:
        """Register the transaction's one after-commit effect: the feeds' wake-ups and pushes, the
        state cache, the game's wake-up and the tasks `change` asks for (None: no wake-up, no task).
        Everything must have been flushed."""
        if self.rows or self.fields or self.feed:
            raise RuntimeError("the unit of work commits with unwritten changes: flush() first")
        fed, self.fed = self.fed, []
        webhook_messages, self.webhook_messages = self.webhook_messages, []
        remembered = (self.game.pk, self.game.version, self.state) if self.state is not None else None
        if fed or webhook_messages or remembered or change is not None:
            commit.on_commit(lambda: _committed(change, fed, webhook_messages, remembered))


def _committed(
    change: Committed | None,
    fed: list[FeedAppended],
    webhook_messages: list[int],
    remembered: tuple[int, int, Any] | None,
) -> None:
    """After the commit, in this order: the feeds (their wake-ups and pushes), the state cache, the
    webhooks, the game's wake-up (sent at once with the feeds', before the slower tasks: followers
    wait on these), then the tasks."""
    for appended in fed:
        feed_publish(appended)
    if remembered is not None:
        game_id, version, state = remembered
        selectors.game_state_keep(game_id=game_id, version=version, state=state)
    if webhook_messages:
        deliveries_schedule(message_ids=webhook_messages)
    if change is None:
        return
    if change.wake:
        entries = list(change.log_entries) if change.log_entries is not None else None
        wakeups.publish(
            game_id=change.game_id, version=change.version, after=change.log_after, entries=entries
        )
        wakeups.send_held()
    if change.rate:
        scheduling.game_ratings_schedule(game_id=change.game_id)
    if change.deal_ended:
        scheduling.deal_end_schedule(game_id=change.game_id)
    if not change.running:
        return
    if change.autoplay_pending:
        scheduling.game_autoplay_schedule(game_id=change.game_id, version=change.version)
        return
    if change.bot_seats:
        scheduling.game_bot_schedule(
            game_id=change.game_id, version=change.version, delay=settings.BOTS_DELAY_SECONDS
        )
    if change.timer_at is not None:
        scheduling.game_timer_schedule(game_id=change.game_id, at=change.timer_at)
