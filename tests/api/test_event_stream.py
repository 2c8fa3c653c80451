"""GET games/{id}/events with `Accept: text/event-stream` (games/event_stream.py): the deal's log
over one connection, the same events as the long-poll (CONTRACT §4 "Events", extended in the schema
and docs/api.md), pushed as they are committed, resumed with Last-Event-ID, ended at the deal's end,
and ended when the viewer's token is revoked."""

import random
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from games.models import Game
from tests.api import sse
from tests.api.playing import choose, get_view, post_action, prompted_seats, step
from tests.conftest import assert_error
from tests.moderation.helpers import make_moderator

pytestmark = pytest.mark.django_db

STREAM = {"HTTP_ACCEPT": "text/event-stream"}


def _log(client, game_id: int, after: int = 0) -> dict:
    response = client.get(f"/api/v1/games/{game_id}/events", {"after": after})
    assert response.status_code == 200
    return response.json()


def test_the_stream_starts_with_the_log_as_the_long_poll_gives_it(make_table, settings):
    settings.EVENTS_SSE_MAX_SECONDS = 0.3
    setup = make_table()
    game_id = setup["game"]
    for seat, client in enumerate(setup["clients"]):
        response = client.get(f"/api/v1/games/{game_id}/events", **STREAM)
        assert response.status_code == 200 and response["Content-Type"].startswith("text/event-stream")
        assert response["Cache-Control"] == "no-cache"
        assert sse.parse(sse.read_stream(response)) == _log(client, game_id)["events"], seat


def test_reconnecting_resumes_after_last_event_id_or_after(make_table, settings):
    settings.EVENTS_SSE_MAX_SECONDS = 0.3
    setup = make_table()
    client, game_id = setup["clients"][0], setup["game"]
    rng = random.Random(5)
    while len(_log(client, game_id)["events"]) < 3:
        assert step(setup["clients"], game_id, rng)
    events = _log(client, game_id)["events"]
    middle = events[0]["seq"]
    by_header = client.get(f"/api/v1/games/{game_id}/events", HTTP_LAST_EVENT_ID=str(middle), **STREAM)
    by_query = client.get(f"/api/v1/games/{game_id}/events", {"after": middle}, **STREAM)
    for response in (by_header, by_query):
        assert sse.parse(sse.read_stream(response)) == events[1:]


def _waiting_stream(setup, seed: int):
    """The first client's stream opened after the log's end, and a prompted seat's next move:
    (response, seat, the seat's view, its action, the log as it stood)."""
    game_id = setup["game"]
    watcher = setup["clients"][0]
    seat = prompted_seats(get_view(watcher, game_id))[0]
    acting = get_view(setup["clients"][seat], game_id)
    action = choose(random.Random(seed), acting["legal_actions"])
    before = _log(watcher, game_id)
    response = watcher.get(
        f"/api/v1/games/{game_id}/events", HTTP_LAST_EVENT_ID=str(before["last_seq"]), **STREAM
    )
    return response, seat, acting, action, before


def test_an_action_is_pushed_to_an_open_stream(make_table, settings):
    """The stream waits after the log's end and sends the next committed event without a new request."""
    settings.EVENTS_SSE_MAX_SECONDS = 20
    settings.EVENTS_POLL_INTERVAL = 0.05
    setup = make_table()
    game_id, watcher = setup["game"], setup["clients"][0]
    response, seat, acting, action, before = _waiting_stream(setup, 3)

    async def follow():
        chunks = aiter(response.streaming_content)
        opening = (await anext(chunks)).decode()
        posted = await sync_to_async(post_action)(
            setup["clients"][seat], game_id, action, version=acting["version"]
        )
        assert posted.status_code == 200, posted.content
        pushed = ""
        while "data: " not in pushed:
            pushed += (await anext(chunks)).decode()
        await chunks.aclose()
        return opening, pushed

    opening, pushed = async_to_sync(follow)()
    assert "data: " not in opening  # nothing after Last-Event-ID yet
    after = _log(watcher, game_id, before["last_seq"])["events"]
    assert sse.parse(pushed) == after[: len(sse.parse(pushed))] and sse.parse(pushed)


def test_without_redis_a_waiting_stream_reads_every_poll_interval(make_table, settings):
    """No Redis (the embedded default): a stream that has read its log and is waiting gets the next
    move within a poll interval, not at its next minute's check."""
    settings.REDIS_URL = None
    settings.EVENTS_POLL_INTERVAL = 0.05
    settings.EVENTS_SSE_CHECK_SECONDS = 60
    settings.EVENTS_SSE_MAX_SECONDS = 20
    setup = make_table()
    game_id, watcher = setup["game"], setup["clients"][0]
    response, seat, acting, action, before = _waiting_stream(setup, 4)

    async def act():
        import asyncio

        await asyncio.sleep(0.5)  # the stream has read its log and waits
        posted = await sync_to_async(post_action)(
            setup["clients"][seat], game_id, action, version=acting["version"]
        )
        assert posted.status_code == 200, posted.content

    texts = async_to_sync(sse.follow_while)(
        [response], act, done=lambda texts: "data: " in texts[0], timeout=5
    )
    assert sse.parse(texts[0]) == _log(watcher, game_id, before["last_seq"])["events"]


def test_the_stream_ends_after_the_deals_last_event(make_table, make_user, make_client, settings):
    settings.EVENTS_SSE_MAX_SECONDS = 60
    setup = make_table()
    game_id = setup["game"]
    _, moderator = make_moderator(make_user, make_client)
    aborted = moderator.post(
        f"/api/v1/moderation/games/{game_id}/abort", {"reason": "test of the stream's end"}, format="json"
    )
    assert aborted.status_code == 200, aborted.content
    started = time.monotonic()
    events = sse.parse(sse.read_stream(setup["clients"][1].get(f"/api/v1/games/{game_id}/events", **STREAM)))
    assert time.monotonic() - started < 30  # it did not run to EVENTS_SSE_MAX_SECONDS
    assert events[-1]["type"] in ("aborted", "deal_over")
    assert "aborted" in [event["type"] for event in events]


def test_a_revoked_token_ends_the_stream_at_its_next_check(make_table, settings):
    settings.EVENTS_SSE_MAX_SECONDS = 60
    settings.EVENTS_SSE_KEEPALIVE = settings.EVENTS_SSE_CHECK_SECONDS = 0.2
    settings.EVENTS_POLL_INTERVAL = 0.05
    setup = make_table()
    client, game_id = setup["clients"][2], setup["game"]
    response = client.get(f"/api/v1/games/{game_id}/events", **STREAM)
    # Ended by the check, long before EVENTS_SSE_MAX_SECONDS.
    assert sse.seconds_to_end_after_logout(client, response) < 30
    assert_error(client.get(f"/api/v1/games/{game_id}/events", **STREAM), 401, "not_authenticated")


def test_errors_come_as_json_before_any_stream(make_table, make_client, make_user):
    setup = make_table(private=True)
    game_id = setup["game"]
    assert_error(make_client().get(f"/api/v1/games/{game_id}/events", **STREAM), 401, "not_authenticated")
    _, outsider = make_user()
    assert_error(
        make_client(outsider).get(f"/api/v1/games/{game_id}/events", **STREAM), 403, "permission_denied"
    )
    missing = Game.objects.order_by("-pk").first().pk + 1000
    assert_error(setup["clients"][0].get(f"/api/v1/games/{missing}/events", **STREAM), 404, "not_found")
    bad = setup["clients"][0].get(f"/api/v1/games/{game_id}/events", {"after": "-1"}, **STREAM)
    assert bad.status_code == 400 and bad["Content-Type"].startswith("application/json")


def test_with_the_token_cache_a_check_costs_no_view_call_and_a_revocation_still_ends_it(
    make_table, settings, monkeypatch
):
    """The periodic check asks the token cache first (accounts/token_cache.py); revoking the token
    forgets it there, so the next check falls through to the DRF checks, which refuse."""
    from games import apis

    settings.AUTH_TOKEN_CACHE_SECONDS = 60
    settings.EVENTS_SSE_MAX_SECONDS = 60
    settings.EVENTS_SSE_KEEPALIVE = settings.EVENTS_SSE_CHECK_SECONDS = 0.1
    settings.EVENTS_POLL_INTERVAL = 0.05
    setup = make_table()
    client, game_id = setup["clients"][3], setup["game"]
    calls = []
    original = apis._game_events_sync

    async def counting(*args, **kwargs):
        calls.append(1)
        return await original(*args, **kwargs)

    monkeypatch.setattr(apis, "_game_events_sync", counting)
    response = client.get(f"/api/v1/games/{game_id}/events", **STREAM)

    async def follow():
        chunks = aiter(response.streaming_content)
        await anext(chunks)
        keep_alives = 0
        while keep_alives < 4:  # a check before each keep-alive, each answered by the cache
            keep_alives += (await anext(chunks)).count(b": keep-alive")
        checked_by_view = len(calls)
        logged_out = await sync_to_async(client.post)("/api/v1/auth/logout")
        assert logged_out.status_code == 204
        started = time.monotonic()
        async for _ in chunks:
            pass
        return checked_by_view, time.monotonic() - started

    checked_by_view, elapsed = async_to_sync(follow)()
    assert checked_by_view == 1  # only the stream's opening ran the view
    assert len(calls) == 2 and elapsed < 30  # the check after the logout ran it, and it refused


@pytest.mark.django_db(transaction=True)
def test_with_redis_each_move_reaches_every_open_stream_in_its_wake_up_without_a_read(
    make_table, make_user, make_client, settings, monkeypatch
):
    """Through Redis a commit's wake-up carries the rows it appended (config/wakeups.py), and an
    open stream forwards them, redacted for its viewer, with no read of its own: the five seats'
    and a spectator's streams each read the log once (when subscribing) over several moves, and
    each carries exactly what that viewer's JSON log gives (private events to their seat only)."""
    import asyncio

    from games import event_stream

    sse.use_redis(settings)
    settings.EVENTS_POLL_INTERVAL = 20  # a fallback poll cannot explain what arrives
    settings.EVENTS_SSE_MAX_SECONDS = 60
    setup = make_table()
    game_id = setup["game"]
    _, token = make_user()
    viewers = [*setup["clients"], make_client(token)]
    befores = [_log(client, game_id)["last_seq"] for client in viewers]
    reads = []
    monkeypatch.setattr(event_stream, "followed_log", sse.counting_reads(event_stream.followed_log, reads))
    responses = [
        client.get(f"/api/v1/games/{game_id}/events", HTTP_LAST_EVENT_ID=str(before), **STREAM)
        for client, before in zip(viewers, befores, strict=True)
    ]
    rng = random.Random(11)
    expected = []

    async def act():
        while len(reads) < len(viewers):  # every stream subscribed, then read its log once
            await asyncio.sleep(0.01)
        for _ in range(8):
            assert await sync_to_async(step)(setup["clients"], game_id, rng)
        expected.extend(
            [await sync_to_async(_log)(c, game_id, b) for c, b in zip(viewers, befores, strict=True)]
        )

    def done(texts):
        return all(
            len(sse.parse(text)) >= len(log["events"]) for text, log in zip(texts, expected, strict=True)
        )

    texts = async_to_sync(sse.follow_while)(responses, act, done=done)
    for seat, (text, log) in enumerate(zip(texts, expected, strict=True)):
        assert sse.parse(text) == log["events"] and log["events"], seat
    assert reads == befores  # one read each, at subscription; every move came in a wake-up
    private = [event for log in expected for event in log["events"] if "private_to" in event]
    assert private, "the moves should include a seat's private event"


@pytest.mark.django_db(transaction=True)
def test_a_streams_opening_view_gives_its_database_connection_back_in_the_same_thread_hop(make_table):
    """A stream's view must not keep its connection until the stream's first read, turns of the
    event loop later: under load that took every pooled connection (config/api/sse.py)."""
    from django.db import connection
    from rest_framework.test import APIRequestFactory

    from config.api.long_poll import then_release
    from games.apis import GameEventsApi

    setup = make_table()
    game_id, token = setup["game"], setup["tokens"][0]

    def opened(wrapped) -> bool:
        connection.close()
        request = APIRequestFactory().get(
            f"/api/v1/games/{game_id}/events", HTTP_AUTHORIZATION=f"Bearer {token}"
        )
        response = async_to_sync(wrapped)(request, game_id=game_id)
        assert response.status_code == 200 and response.data["events"]
        return connection.connection is not None

    assert opened(sync_to_async(GameEventsApi.as_view()))  # the view alone keeps it (the control)
    assert not opened(then_release(GameEventsApi.as_view()))
