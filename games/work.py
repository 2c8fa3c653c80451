"""The unit of work of one transaction on a locked game.

A write service locks a game row (games/lock_objects.py) and wraps it in a `GameWork`; everything
that transaction collects on the way to its commit travels in that value, passed explicitly:

- `appended`: the event rows it appended, which the commit's wake-up carries to open streams
  (games/actions.py `committed`);
- `timer_at` / `timer_armed`: the ETA of a deadline task armed inside the transaction, to send after
  the commit (games/timers.py);
- `deferred`: writes held back to go with the next combined statement (games/writes.py `deferred`).

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
