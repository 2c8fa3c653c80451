"""The unit of work of one transaction on a locked game.

A write service locks a game row (games/lock_objects.py) and wraps it in a `GameWork`; everything
that transaction collects on the way to its commit travels in that value, passed explicitly:

- `appended`: the event rows it appended, which the commit's wake-up carries to open streams
  (games/actions.py `committed`);
- `timer_at` / `timer_armed`: the ETA of a deadline task armed inside the transaction, to send after
  the commit (games/timers.py);
- `deferred`: writes held back to go with the next combined statement (games/writes.py `deferred`);
- `feed`: entries for the seats' users' feeds (games/seat_feed.py), written with the next combined
  statement, and `announced`, the seats told of their prompt whose end they are still to be told;
- `trustee_by`: why a seat went on 托管 in this transaction (its trustee's answer closes its prompt
  "by timer" after a timeout).

Nothing of this is kept on the model instance: the row is data, the transaction's bookkeeping is here.
"""

from dataclasses import dataclass, field
from datetime import datetime

from games.models import Event, Game


@dataclass(eq=False)
class DeferredWrites:
    """Event rows and game fields waiting for the next combined write (games/writes.py)."""

    rows: list[Event] = field(default_factory=list)
    fields: set[str] = field(default_factory=set)


@dataclass(eq=False)
class GameWork:
    game: Game
    appended: list[Event] = field(default_factory=list)
    timer_armed: bool = False
    timer_at: datetime | None = None
    deferred: DeferredWrites | None = None
    feed: list[tuple[int, str, dict]] = field(default_factory=list)
    announced: set[int] | None = None  # None: not looked at yet (games/seat_feed.py prompts_track)
    trustee_by: dict[int, str] = field(default_factory=dict)
