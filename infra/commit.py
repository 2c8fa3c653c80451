"""After-commit effects: the one place the project hands work to `transaction.on_commit`.

Zulip sends every event through one function (`send_event_on_commit`), so "what leaves the server
when a change commits" has one answer to grep for. Here that function is `on_commit`: wake-ups,
feeds' hand-over to push, Celery tasks and cache updates are all registered through it, only
after the change they announce has committed (a rolled-back change announces nothing), in the order
registered. A move registers exactly one (games/work.py `GameWork.commit`); a table's or an
account's change registers its own few. tests/test_one_writer.py fails on a `transaction.on_commit`
anywhere else, and on a new caller of this function not on its list.
"""

from collections.abc import Callable

from django.db import transaction


def on_commit(effect: Callable[[], None]) -> None:
    """Run `effect` once the current transaction commits (at once outside one; never if it rolls
    back, nor if the savepoint it was registered in does)."""
    transaction.on_commit(effect)
