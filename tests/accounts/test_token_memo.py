"""accounts/token_memo.py: each process's memo of the token cache answers only while it hears the
forgets of every process, and forgets a token the moment any process revokes it."""

import os
import time

import pytest
import redis
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts import token_memo
from accounts.models import AuthToken
from tests.api.sse import use_redis
from tests.conftest import assert_error

pytestmark = [pytest.mark.django_db(transaction=True)]


def _eventually(condition, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


@pytest.fixture
def memo_on(settings):
    use_redis(settings, db=11)
    settings.AUTH_TOKEN_CACHE_SECONDS = 60
    settings.AUTH_TOKEN_MEMO_SECONDS = 30
    token_memo.answering()  # starts the listener
    assert _eventually(token_memo.answering), "the listener never confirmed its subscription"
    yield redis.Redis.from_url(settings.REDIS_URL)
    token_memo._memo.clear()


def _token_queries(client, path="/api/v1/me") -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    assert response.status_code == 200, response.json()
    return sum('"accounts_authtoken"' in q["sql"] and q["sql"].startswith("SELECT") for q in queries)


def _memoized(make_user, make_client) -> tuple[str, str]:
    """A new user's token, used twice (looked up, then answered from the shared cache and kept in
    the memo); returns it and its hash."""
    _, token = make_user()
    client = make_client(token)
    _token_queries(client)
    _token_queries(client)
    key_hash = AuthToken.hash_key(token)
    assert key_hash in token_memo._memo
    return token, key_hash


def test_a_token_used_again_is_answered_from_the_memo(memo_on, make_user, make_client):
    _, token = make_user()
    client = make_client(token)
    assert _token_queries(client) == 1  # looked up, kept in the shared cache
    key_hash = AuthToken.hash_key(token)
    assert key_hash not in token_memo._memo
    assert _token_queries(client) == 0  # from the shared cache, now kept in the memo too
    assert key_hash in token_memo._memo
    from django.core.cache import cache

    cache.clear()  # the shared cache forgot it (evicted): the memo still answers, no query
    assert _token_queries(client) == 0


def test_each_answer_is_a_fresh_object(memo_on, make_user, make_client):
    _, key_hash = _memoized(make_user, make_client)
    first = token_memo.recall(key_hash)
    first.user.username = "changed-in-one-request"
    assert token_memo.recall(key_hash).user.username != "changed-in-one-request"


def test_a_forget_published_by_another_process_reaches_this_memo(memo_on, make_user, make_client):
    _, key_hash = _memoized(make_user, make_client)
    assert key_hash in token_memo._memo
    memo_on.publish(token_memo.forget_channel(), f"{'0' * 64} {key_hash}")  # as another process would
    assert _eventually(lambda: key_hash not in token_memo._memo, 2.0)


def test_signing_out_stops_the_token_at_once_with_the_memo_on(memo_on, make_user, make_client):
    _, token = make_user()
    client = make_client(token)
    _token_queries(client)
    _token_queries(client)
    assert client.post("/api/v1/auth/logout").status_code == 204
    assert AuthToken.hash_key(token) not in token_memo._memo
    assert_error(client.get("/api/v1/me"), 401, "not_authenticated")


def test_a_lookup_that_a_forget_overtook_does_not_keep_its_answer(memo_on, make_user, make_client):
    _, key_hash = _memoized(make_user, make_client)
    looked_up = token_memo.recall(key_hash)
    token_memo._memo.clear()
    since = token_memo.generation()
    token_memo.forget_everywhere([key_hash])  # revoked while the lookup was on its way
    token_memo.keep(key_hash, looked_up, since=since)
    assert key_hash not in token_memo._memo
    token_memo.keep(key_hash, looked_up, since=token_memo.generation())
    assert key_hash in token_memo._memo


def test_a_lost_connection_empties_the_memo_and_it_answers_again_once_resubscribed(
    memo_on, make_user, make_client
):
    _, key_hash = _memoized(make_user, make_client)
    assert token_memo.recall(key_hash) is not None
    killed = 0
    for client in memo_on.client_list():
        if client.get("name") == f"token-memo-{os.getpid()}":  # this process's, not another test run's
            killed += memo_on.client_kill_filter(_id=client["id"])
    assert killed
    assert _eventually(lambda: not token_memo._live, 3.0)
    assert token_memo.recall(key_hash) is None and not token_memo._memo
    assert _eventually(token_memo.answering, 10.0)


def test_a_forked_process_starts_without_its_parents_memo(memo_on, make_user, make_client):
    _memoized(make_user, make_client)
    assert token_memo._memo
    token_memo._listener_pid = -1  # as if this were a child forked after the parent's lookups
    assert not token_memo.answering()
    assert not token_memo._memo
    assert _eventually(token_memo.answering)


def test_without_redis_there_is_no_memo(settings, make_user, make_client):
    settings.REDIS_URL = None
    settings.AUTH_TOKEN_CACHE_SECONDS = 60
    assert not token_memo.answering()
    _, token = make_user()
    client = make_client(token)
    _token_queries(client)
    assert AuthToken.hash_key(token) not in token_memo._memo


def test_revoking_tells_every_process(memo_on):
    from accounts import token_cache

    listener = memo_on.pubsub()
    listener.subscribe(token_memo.forget_channel())
    assert listener.get_message(timeout=2)["type"] == "subscribe"
    token_cache.forget(["a" * 64, "b" * 64])
    message = listener.get_message(timeout=2)
    assert message["type"] == "message" and message["data"].split() == [b"a" * 64, b"b" * 64]
    listener.close()
