"""What the other apps do when a player deletes or exports his account (docs/client-guide.md
"Accounts").

accounts depends on no other app (docs/architecture.md "Module dependencies"), yet a player's seats,
tickets, games, penalties and reports live in matchmaking and games. Those apps subscribe here once,
at start-up (their AppConfig.ready), as the table's deal loop subscribes to the end of a deal
(games/deal_end.py); accounts calls them at the one moment each concerns.
"""

from collections.abc import Callable
from typing import Any

Eraser = Callable[..., None]  # (*, user_id: int) -> None, inside the deletion's transaction
Exporter = Callable[..., dict[str, Any]]  # (*, user_id: int) -> sections of the export

_erasers: list[Eraser] = []
_exporters: list[Exporter] = []


def account_erase_subscribe(handler: Eraser) -> None:
    """`handler(user_id=…)` runs inside the deletion's transaction, after the user row is
    tombstoned (its username is then `deleted-<id>`): it ends what the player had running and
    erases the personal data its app keeps."""
    if handler not in _erasers:
        _erasers.append(handler)


def account_export_subscribe(handler: Exporter) -> None:
    """`handler(user_id=…)` answers sections of `GET me/export` (accounts/account_apis.py declares
    their shape)."""
    if handler not in _exporters:
        _exporters.append(handler)


def account_erase_run(*, user_id: int) -> None:
    for handler in _erasers:
        handler(user_id=user_id)


def account_export_run(*, user_id: int) -> dict[str, Any]:
    sections: dict[str, Any] = {}
    for handler in _exporters:
        sections.update(handler(user_id=user_id))
    return sections
