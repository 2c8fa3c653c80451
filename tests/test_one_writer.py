"""The one-writer rule (docs/architecture.md "One writer, one after-commit"), checked over the code.

A deal's rows (Game, Event), the feeds' rows (FeedEvent, FeedCursor) and the table logs' rows
(TableEvent) are written by the few functions listed below, each with the reason it may; on a move's
path that is the unit of work alone (games/work.py `GameWork.flush`, through games/writes.py). Work
for after the commit is registered through one choke point (infra/commit.py `on_commit`), from the
functions listed below; a move registers exactly one (`GameWork.commit`). The walk reads every
module of the project's packages (not migrations, not tests) with `ast`: a new writer or a new
registration fails here until it is added to a list with its reason, and an entry that no longer
matches anything fails too, so the lists stay true.

What it sees: `transaction.on_commit(…)` and `commit.on_commit(…)` calls; `.save(…)` on a name
`game` (or an attribute `.game`: other names are not typed, so an instance saved under another
name, such as matchmaking/account_data.py erasing a name from table logs, is not seen);
`<Model>.objects….<update|create|bulk_create|get_or_create|update_or_create|delete>(…)` on one of
the models above; and calls of the statement builders and writers (`rows_insert`,
`insert_statement`, `feed_append_prepare`, `feed_write`, `game_write`). Raw
SQL text is not read: it is built by those builders, whose callers are listed.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("accounts", "config", "events", "games", "infra", "matchmaking", "tournaments", "web")
MODELS = {"Game", "Event", "FeedEvent", "FeedCursor", "TableEvent"}
QUERY_WRITES = {"update", "create", "bulk_create", "get_or_create", "update_or_create", "delete"}
STATEMENTS = {"rows_insert", "insert_statement", "feed_append_prepare", "feed_write", "game_write"}

# (module, function, what) -> why it may.
ON_COMMIT = {
    ("infra/commit.py", "on_commit", "transaction.on_commit"): "the choke point itself",
    ("accounts/token_cache.py", "forget", "transaction.on_commit"): (
        "the token cache's forget, owned by the event server's work (issue 41 item 4), which is to "
        "replace it; it sends nothing a client sees"
    ),
    ("games/work.py", "GameWork.commit", "commit.on_commit"): (
        "a deal's unit of work: the one after-commit effect of every write to a deal"
    ),
    ("accounts/feed.py", "feed_append_many", "commit.on_commit"): (
        "feed entries appended outside a deal (tables, tickets, invitations, tournaments, accounts)"
    ),
    ("accounts/webhooks/outbox.py", "webhook_enqueue", "commit.on_commit"): (
        "webhook messages of a table's or a rating's change (a deal's go through its unit of work)"
    ),
    ("accounts/webhooks/services.py", "message_redeliver", "commit.on_commit"): "a staff redelivery",
    ("accounts/webhooks/services.py", "webhook_message_deliver", "commit.on_commit"): "a delivery's retry",
    ("infra/wakeups.py", "publish_access", "commit.on_commit"): (
        "an access change (a token revoked, a ban, a seat left) ends the user's open streams"
    ),
    ("matchmaking/table_events.py", "append", "commit.on_commit"): "a table log's wake-up",
    ("matchmaking/tickets.py", "tickets_settle", "commit.on_commit"): "settled tickets' long-polls",
    ("matchmaking/services.py", "table_deal_end", "commit.on_commit"): "the table's next-deal task",
    ("games/clock.py", "_deadlines_move", "commit.on_commit"): (
        "after an outage, the deadline tasks of every deal whose deadline moved (one statement, many games)"
    ),
    ("tournaments/tasks.py", "table_saved", "commit.on_commit"): (
        "a tournament's step when one of its tables closes"
    ),
}

WRITERS = {
    ("games/writes.py", "game_write", "insert_statement"): "the unit of work's statement: event rows",
    ("games/writes.py", "game_write", "rows_insert"): "the same, on a database other than PostgreSQL",
    ("games/writes.py", "game_write", "feed_append_prepare"): "the same: the move's feed entries",
    ("games/writes.py", "game_write", "feed_write"): "the same, when only feed entries changed",
    ("games/work.py", "GameWork.flush", "game_write"): "the unit of work's one flush",
    ("games/services.py", "game_start", "game.save"): (
        "the insert of a new deal's row: its id numbers everything its unit of work records"
    ),
    ("games/services.py", "game_ratings_update", "Game.update"): (
        "after the deal, once: why it is not rated (a conditional one-field update, no lock, no event)"
    ),
    ("games/clock.py", "_deadlines_move", "Game.update"): (
        "after an outage, every running deal's deadline moves on in one statement"
    ),
    ("accounts/feed.py", "feed_write", "feed_append_prepare"): "the feed's own append",
    ("accounts/feed.py", "feed_write", "rows_insert"): "the same, on a database other than PostgreSQL",
    ("accounts/feed.py", "feed_append_many", "feed_write"): "the feed's append outside a deal",
    ("accounts/feed.py", "_appended", "FeedEvent.delete"): "pruning a user's feed past FEED_KEEP",
    ("matchmaking/table_events.py", "append", "TableEvent.create"): "the table log's one appender",
    ("accounts/account_services.py", "_account_erase", "FeedEvent.delete"): (
        "an erased account's feed goes with it (docs/privacy.md)"
    ),
    ("infra/sql_insert.py", "rows_insert", "insert_statement"): "the INSERT builder's own runner",
}


def _target(call: ast.Call) -> str | None:
    """What this call writes or registers, in the lists' terms, or None."""
    func = call.func
    if isinstance(func, ast.Name) and func.id in STATEMENTS:
        return func.id
    if not isinstance(func, ast.Attribute):
        return None
    receiver = func.value
    if func.attr == "on_commit" and isinstance(receiver, ast.Name):
        return f"{receiver.id}.on_commit"
    if func.attr in STATEMENTS:
        return func.attr
    if func.attr == "save":
        name = receiver.id if isinstance(receiver, ast.Name) else getattr(receiver, "attr", None)
        if name == "game":
            return "game.save"
        return None
    if func.attr in QUERY_WRITES:
        root = receiver
        while isinstance(root, (ast.Attribute, ast.Call)):
            root = root.value if isinstance(root, ast.Attribute) else root.func
        if isinstance(root, ast.Name) and root.id in MODELS and ".objects" in ast.unparse(receiver):
            return f"{root.id}.{func.attr}"
    return None


def _found() -> set[tuple[str, str, str]]:
    found = set()
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            module = path.relative_to(ROOT).as_posix()
            _walk(ast.parse(path.read_text(), module), module, "", found)
    return found


def _walk(node: ast.AST, module: str, scope: str, found: set) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            inner = f"{scope}.{child.name}" if scope else child.name
            # A method is named with its class; a function nested in a function, by the outer one.
            _walk(child, module, inner if isinstance(node, (ast.Module, ast.ClassDef)) else scope, found)
            continue
        if isinstance(child, ast.Call) and (target := _target(child)) is not None:
            found.add((module, scope, target))
        _walk(child, module, scope, found)



def test_after_commit_work_is_registered_only_through_the_choke_point():
    found = {key for key in _found() if key[2].endswith(".on_commit")}
    assert found - ON_COMMIT.keys() == set(), "a new after-commit registration: go through infra/commit.py"
    assert ON_COMMIT.keys() - found == set(), "listed but gone: take it off the list"


def test_deal_feed_and_table_log_rows_have_the_listed_writers_only():
    found = {key for key in _found() if not key[2].endswith(".on_commit")}
    assert found - WRITERS.keys() == set(), "a new writer of a deal's, a feed's or a table log's rows"
    assert WRITERS.keys() - found == set(), "listed but gone: take it off the list"


def test_the_walk_sees_a_writer_and_a_registration_it_is_shown():
    """The check itself: a module with a forbidden write and a direct registration is caught."""
    source = (
        "def f(game):\n"
        "    game.save(update_fields=['version'])\n"
        "    Event.objects.filter(game=game).update(version=1)\n"
        "    FeedEvent.objects.create(user_id=1, seq=1)\n"
        "    transaction.on_commit(lambda: None)\n"
        "    rows_insert(Event, [])\n"
        "    table.save()\n"  # not a listed model: not caught
    )
    found: set = set()
    _walk(ast.parse(source), "x.py", "", found)
    assert found == {
        ("x.py", "f", "game.save"),
        ("x.py", "f", "Event.update"),
        ("x.py", "f", "FeedEvent.create"),
        ("x.py", "f", "transaction.on_commit"),
        ("x.py", "f", "rows_insert"),
    }
