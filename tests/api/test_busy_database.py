"""A request that finds every pooled database (or Redis) connection busy for the pool's whole timeout
is told to come back (503 `service_unavailable`, `Retry-After`), in the one error shape, not answered
500: the server is overloaded, not broken, and nothing was done (docs/client-guide.md, "Errors").
An open event stream that meets it ends as at its time limit (tests/events/test_streams.py)."""

import pytest
import redis
from django.db import OperationalError
from psycopg_pool import PoolTimeout

from accounts import selectors as account_selectors
from games import selectors
from infra.api import busy, handler
from tests.conftest import assert_error, require_local_redis

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


def test_a_database_out_of_reach_is_a_503_and_a_bug_is_not():
    from django.db import IntegrityError, InterfaceError, ProgrammingError

    # Lost, refused, restarting, a deadlock's victim: nothing was committed, a retry may succeed.
    assert busy.server_busy(OperationalError("server closed the connection unexpectedly")) is True
    assert busy.server_busy(InterfaceError("connection already closed")) is True
    # Bad data or a bug: a retry would fail the same way.
    assert busy.server_busy(IntegrityError("duplicate key")) is False
    assert busy.server_busy(ProgrammingError("syntax error")) is False
    assert busy.server_busy(ValueError("no")) is False
    try:
        _busy()
    except OperationalError as exc:
        assert busy.server_busy(exc) is True


def test_a_database_that_went_away_in_a_view_or_a_middleware_answers_503(make_table, monkeypatch, client):
    setup = make_table()

    def gone(*args, **kwargs):
        raise OperationalError("connection to server at 127.0.0.1 failed: Connection refused")

    monkeypatch.setattr(selectors, "game_get", gone)
    response = setup["clients"][0].get(f"/api/v1/games/{setup['game']}")
    body = assert_error(response, 503, "service_unavailable")
    assert response["Retry-After"] == str(handler.BUSY_RETRY_AFTER_SECONDS) and body["extra"]
    # Outside DRF (Django's handler500, as when a middleware meets it): the same answer, not a 500.
    try:
        gone()
    except OperationalError:
        answer = handler.json_500(None)
    assert answer.status_code == 503 and answer["Retry-After"] == "1"


def _redis_pool_empty() -> redis.exceptions.ConnectionError:
    """The error redis-py's own BlockingConnectionPool raises when its one connection stays taken
    (the cache's pool class, settings CACHES), so a redis-py that words it otherwise fails here."""
    pool = redis.BlockingConnectionPool(host="127.0.0.1", port=6379, max_connections=1, timeout=0.01)
    require_local_redis()
    taken = pool.get_connection()
    try:
        pool.get_connection()
    except redis.exceptions.ConnectionError as exc:
        return exc
    finally:
        pool.release(taken)
        pool.disconnect()
    raise AssertionError("a second connection came from a pool of one")


def test_an_exhausted_redis_pool_is_busy_and_other_redis_errors_are_not():
    assert busy.server_busy(_redis_pool_empty()) is True
    refused = redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379.")
    assert busy.server_busy(refused) is False
    assert busy.server_busy(redis.exceptions.TimeoutError("Timeout reading from socket")) is False


def test_a_token_lookup_that_finds_the_redis_pool_exhausted_answers_503(make_table, monkeypatch):
    # As in a 300-table run: 1,500 clients opening their streams at once held every cache connection.
    setup = make_table()
    empty = _redis_pool_empty()

    def lookup(**kwargs):
        raise empty

    monkeypatch.setattr(account_selectors, "token_get_active", lookup)
    for path in (f"/api/v1/games/{setup['game']}", "/api/v1/me/events"):
        response = setup["clients"][0].get(path)
        assert_error(response, 503, "service_unavailable")
        assert response["Retry-After"] == str(handler.BUSY_RETRY_AFTER_SECONDS)
