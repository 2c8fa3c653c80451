"""A request that finds every pooled database connection busy for the pool's whole timeout is told
to come back (503 `service_unavailable`, `Retry-After`), in the one error shape, not answered 500:
the server is overloaded, not broken, and nothing was done (docs/client-guide.md, "Errors")."""

import pytest
from django.db import OperationalError
from psycopg_pool import PoolTimeout

from config.api import handler
from games import selectors
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db


def _busy(*args, **kwargs):
    # What Django raises when psycopg_pool's getconn() times out (django/db/utils.py wraps it).
    try:
        raise PoolTimeout("couldn't get a connection after 10.00 sec")
    except PoolTimeout as exc:
        raise OperationalError("couldn't get a connection after 10.00 sec") from exc


def test_an_exhausted_pool_answers_503_with_retry_after(make_table, monkeypatch):
    setup = make_table()
    client = setup["clients"][0]
    monkeypatch.setattr(selectors, "game_get", _busy)
    response = client.get(f"/api/v1/games/{setup['game']}")
    body = assert_error(response, 503, "service_unavailable")
    assert body["extra"] == {"retry_after": handler.BUSY_RETRY_AFTER_SECONDS}
    assert response["Retry-After"] == str(handler.BUSY_RETRY_AFTER_SECONDS)


def test_other_database_errors_are_not_taken_for_a_busy_pool():
    assert handler._pool_exhausted(OperationalError("server closed the connection unexpectedly")) is False
    assert handler._pool_exhausted(ValueError("no")) is False
    try:
        _busy()
    except OperationalError as exc:
        assert handler._pool_exhausted(exc) is True
