"""A cursor whose parameters travel apart from the statement (server-side binding), for the move
path's hand-written statements.

Django's PostgreSQL backend binds parameters on the client by default: psycopg quotes each value
into the SQL text, which for a move's write means escaping the deal's 5–6 KB JSON state and
building a statement of that size, which the server then parses whole. Bound on the server, the
state goes as a parameter of its own. The ORM's other queries keep Django's default (some of the
queries it builds are valid only with client-side binding; the Django docs' `server_side_binding`).
Statements are not prepared (Django leaves psycopg's `prepare_threshold` unset), so a transaction-
pooling PgBouncer in front (docs/scaling.md) is no obstacle.
"""

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.postgresql.base import ServerBindingCursor


def bound_cursor():
    """A cursor (a context manager, as `connection.cursor()` is) binding on the server on
    PostgreSQL; elsewhere the connection's own."""
    # The connection itself, read once: every attribute read through django.db.connection is a
    # lookup in an asgiref Local.
    db = connections[DEFAULT_DB_ALIAS]
    if db.vendor != "postgresql":
        return db.cursor()
    db.ensure_connection()
    with db.wrap_database_errors:
        # What `connection.cursor()` does with the cursor it creates: the debug wrapper when
        # queries are logged (tests count them), the plain wrapper otherwise.
        return db._prepare_cursor(ServerBindingCursor(db.connection))
