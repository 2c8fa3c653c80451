"""`Accept: text/event-stream` on a deal's log and on the feed (events/streams.py): the same entries as
the long-poll, pushed as they commit, resumed with Last-Event-ID, ended at the deal's end, and ended
within seconds when the reader loses the right to read it (docs/client-guide.md §3), never sending an
entry he may no longer see."""

import asyncio
import random
import time
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.db import OperationalError
from django.utils import timezone
from psycopg_pool import PoolTimeout

from accounts import services as account_services
from accounts.models import AuthToken
from accounts.scopes import Scope
from games import selectors as game_selectors
from games.models import Game
from tests.api import sse
from tests.api.playing import choose, get_view, post_action, prompted_seats, step
from tests.conftest import assert_error
from tests.events import client as events
from tests.integrations.oauth import oauth_access_token
from tests.moderation.helpers import make_moderator

pytestmark = pytest.mark.django_db(transaction=True)

STREAM = events.STREAM


def _log(client, game_id: int, after: int = 0) -> dict:
    response = client.get(f"/api/v1/games/{game_id}/events", {"after": after})
    assert response.status_code == 200
    return response.json()


def _path(game_id: int) -> str:
    return f"/api/v1/games/{game_id}/events"


def test_the_stream_starts_with_the_log_as_the_long_poll_gives_it(make_table, settings):
    settings.EVENTS_SSE_MAX_SECONDS = 0.3
    setup = make_table()
    game_id = setup["game"]
    for seat, client in enumerate(setup["clients"]):
        answer = events.get(_path(game_id), token=setup["tokens"][seat], headers=STREAM)
        assert answer.status == 200 and answer["Content-Type"].startswith("text/event-stream")
        assert answer["Cache-Control"] == "no-cache" and answer["X-Accel-Buffering"] == "no"
        assert answer["X-Content-Type-Options"] == "nosniff" and answer["X-Request-ID"]
        assert sse.parse(answer.body.decode()) == _log(client, game_id)["events"], seat


def test_reconnecting_resumes_after_last_event_id_or_after(make_table, settings):
    settings.EVENTS_SSE_MAX_SECONDS = 0.3
    setup = make_table()
    client, game_id, token = setup["clients"][0], setup["game"], setup["tokens"][0]
    rng = random.Random(5)
    while len(_log(client, game_id)["events"]) < 3:
        assert step(setup["clients"], game_id, rng)
    logged = _log(client, game_id)["events"]
    middle = logged[0]["seq"]
    by_header = events.get(_path(game_id), token=token, headers={**STREAM, "Last-Event-ID": str(middle)})
    by_query = events.get(_path(game_id), token=token, query={"after": middle}, headers=STREAM)
    for answer in (by_header, by_query):
        assert sse.parse(answer.body.decode()) == logged[1:]


def test_errors_come_as_json_before_any_stream(make_table, make_user):
    setup = make_table(private=True)
    game_id = setup["game"]
    assert_error(events.get(_path(game_id), headers=STREAM), 401, "not_authenticated")
    _, outsider = make_user()
    assert_error(events.get(_path(game_id), token=outsider, headers=STREAM), 403, "permission_denied")
    missing = Game.objects.order_by("-pk").first().pk + 1000
    assert_error(events.get(_path(missing), token=setup["tokens"][0], headers=STREAM), 404, "not_found")
    bad = events.get(_path(game_id), token=setup["tokens"][0], query={"after": "-1"}, headers=STREAM)
    assert bad.status == 400 and bad["Content-Type"] == "application/json"


def _next_move(setup, seed: int):
    """A prompted seat's next move: (seat, its view, its action)."""
    seat = prompted_seats(get_view(setup["clients"][0], setup["game"]))[0]
    acting = get_view(setup["clients"][seat], setup["game"])
    return seat, acting, choose(random.Random(seed), acting["legal_actions"])


async def _until(call: events.Call, done, *, timeout: float = 10.0) -> str:
    """Read `call`'s stream until `done(text)` or the stream ends; the text read."""
    text = ""
    chunks = call.chunks()
    end = time.monotonic() + timeout
    while not done(text):
        left = end - time.monotonic()
        assert left > 0, f"timed out; read so far: {text[-500:]!r}"
        try:
            text += await asyncio.wait_for(anext(chunks), left)
        except StopAsyncIteration:
            break
    return text


@pytest.mark.parametrize("mode", ["redis", "polling"])
def test_an_action_is_pushed_to_an_open_stream(mode, make_table, settings):
    """The stream waits after the log's end and sends the next committed event without a new request:
    through its wake-up (Redis), or by reading every poll interval (no Redis)."""
    if mode == "redis":
        sse.use_redis(settings)
        settings.EVENTS_POLL_INTERVAL = 20  # a fallback poll cannot explain what arrives
    else:
        settings.REDIS_URL = None
        settings.EVENTS_POLL_INTERVAL = 0.05
    settings.EVENTS_SSE_MAX_SECONDS = 20
    setup = make_table()
    game_id, watcher = setup["game"], setup["clients"][0]
    before = _log(watcher, game_id)
    seat, acting, action = _next_move(setup, 3)
    headers = {**STREAM, "Last-Event-ID": str(before["last_seq"])}

    async def follow():
        call = await events.open_call(_path(game_id), token=setup["tokens"][0], headers=headers)
        try:
            opening = await _until(call, lambda text: "\n\n" in text)
            await asyncio.sleep(0.3)  # subscribed and waiting
            posted = await sync_to_async(post_action)(
                setup["clients"][seat], game_id, action, version=acting["version"]
            )
            assert posted.status_code == 200, posted.content
            return opening, await _until(call, lambda text: "data: " in text)
        finally:
            await call.close()

    opening, pushed = async_to_sync(follow)()
    assert "data: " not in opening  # nothing after Last-Event-ID yet
    after = _log(watcher, game_id, before["last_seq"])["events"]
    assert sse.parse(pushed) and sse.parse(pushed) == after[: len(sse.parse(pushed))]


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
    answer = events.get(_path(game_id), token=setup["tokens"][1], headers=STREAM)
    assert time.monotonic() - started < 30  # it did not run to EVENTS_SSE_MAX_SECONDS
    logged = sse.parse(answer.body.decode())
    assert logged[-1]["type"] in ("aborted", "deal_over") and "aborted" in [e["type"] for e in logged]


def _seconds_to_end(setup, seat: int, act, *, path=None, token=None) -> tuple[float, str]:
    """Open a stream as `seat` (or with `token`), wait until it follows, `act()` (synchronous), and
    return how long the stream then took to end by itself, and all it sent after `act`."""

    async def follow():
        call = await events.open_call(
            path or _path(setup["game"]), token=token or setup["tokens"][seat], headers=STREAM
        )
        assert call.status == 200, await call.body()
        try:
            await _until(call, lambda text: "\n\n" in text)
            await asyncio.sleep(0.5)  # subscribed: it has read its log and waits
            await sync_to_async(act)()
            started = time.monotonic()
            after = await _until(call, lambda text: False, timeout=20)
            return time.monotonic() - started, after
        finally:
            await call.close()

    return async_to_sync(follow)()


@pytest.fixture
def slow_checks(settings):
    """Redis wake-ups as in production, and periodic checks too rare to explain a quick end."""
    sse.use_redis(settings)
    settings.EVENTS_SSE_CHECK_SECONDS = 60
    settings.EVENTS_SSE_KEEPALIVE = 15
    settings.EVENTS_POLL_INTERVAL = 20
    settings.EVENTS_SSE_MAX_SECONDS = 120


def test_a_client_that_goes_away_ends_its_stream_at_once(make_table, slow_checks):
    """Not at the next keep-alive that fails to be written (EVENTS_SSE_KEEPALIVE, 15 s here): its
    place, presence mark and subscriptions go with it."""
    setup = make_table()

    async def follow():
        call = await events.open_call(_path(setup["game"]), token=setup["tokens"][0], headers=STREAM)
        try:
            await _until(call, lambda text: "\n\n" in text)
            await asyncio.sleep(0.5)  # subscribed: it waits
            return await call.disconnect(timeout=5)
        finally:
            await call.close()

    assert async_to_sync(follow)()


def test_logging_out_ends_the_stream_within_seconds(make_table, slow_checks):
    setup = make_table()
    client = setup["clients"][2]
    seconds, _ = _seconds_to_end(setup, 2, lambda: client.post("/api/v1/auth/logout"))
    assert seconds < 5
    assert_error(
        events.get(_path(setup["game"]), token=setup["tokens"][2], headers=STREAM), 401, "not_authenticated"
    )


def _ban(moderator, user):
    def ban():
        response = moderator.post(
            "/api/v1/moderation/sanctions", {"user": user.pk, "kind": "ban", "reason": "test"}, format="json"
        )
        assert response.status_code == 201, response.content

    return ban


def test_a_ban_ends_the_stream_within_seconds(make_table, make_user, make_client, slow_checks):
    setup = make_table()
    _, moderator = make_moderator(make_user, make_client)
    seconds, _ = _seconds_to_end(setup, 3, _ban(moderator, setup["users"][3]))
    assert seconds < 5
    assert_error(events.get("/api/v1/me/events", token=setup["tokens"][3], headers=STREAM), 403, "banned")


def test_a_ban_ends_an_open_feed_within_seconds(make_table, make_user, make_client, slow_checks):
    setup = make_table()
    _, moderator = make_moderator(make_user, make_client)
    seconds, _ = _seconds_to_end(setup, 2, _ban(moderator, setup["users"][2]), path="/api/v1/me/events")
    assert seconds < 5


def test_revoking_an_oauth_token_ends_its_stream(make_table, slow_checks):

    setup = make_table()
    user = setup["users"][1]
    access = oauth_access_token(user, token="oauth-stream-1")
    seconds, _ = _seconds_to_end(setup, 1, access.revoke, token=access.token)
    assert seconds < 5


def test_an_expiring_token_ends_the_stream_when_it_expires(make_table, slow_checks):
    setup = make_table()
    token, key = account_services.personal_token_create(
        user=setup["users"][0],
        name="short",
        scopes=[Scope.READ],
        expires_in_days=1,
        granted=frozenset(Scope.values),
    )
    AuthToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() + timedelta(seconds=3))
    seconds, _ = _seconds_to_end(setup, 0, lambda: None, token=key)
    assert seconds < 6


def test_leaving_a_private_table_ends_the_stream_and_sends_nothing_of_the_seat_after(make_table, slow_checks):
    """The probe's case: the player who left kept receiving the log, his old seat's private events
    included, for up to a minute. Now leaving ends the stream at once, and nothing addressed to the
    seat is sent after it."""
    setup = make_table(private=True)
    game_id = setup["game"]
    seat = 4
    leaver = setup["clients"][seat]

    def leave_then_play():
        assert leaver.post(f"/api/v1/tables/{setup['table']}/leave").status_code == 200
        rng = random.Random(8)
        for _ in range(6):  # the deal goes on, the seat that was his played by 托管
            for other in prompted_seats(get_view(setup["clients"][0], game_id)):
                view = get_view(setup["clients"][other], game_id) if other != seat else {}
                if view.get("legal_actions"):
                    action = choose(rng, view["legal_actions"])
                    post_action(setup["clients"][other], game_id, action, version=view["version"])
                    break

    seconds, after = _seconds_to_end(setup, seat, leave_then_play)
    assert seconds < 5
    for entry in sse.parse(after):
        assert "private_to" not in entry or seat not in entry["private_to"], entry
    assert_error(events.get(_path(game_id), token=setup["tokens"][seat]), 403, "permission_denied")


def test_with_redis_moves_reach_every_open_stream_redacted_for_its_reader(
    make_table, make_user, settings, monkeypatch
):
    """Through Redis a commit's wake-up carries the rows it appended (infra/wakeups.py): an open stream
    forwards them without a read of its own, except entries addressed to some seats, which it reads.
    The five seats' and a spectator's streams each carry exactly what that reader's JSON log gives."""
    sse.use_redis(settings)
    settings.EVENTS_POLL_INTERVAL = 20
    settings.EVENTS_SSE_MAX_SECONDS = 60
    setup = make_table()
    game_id = setup["game"]
    _, spectator = make_user()
    tokens = [*setup["tokens"], spectator]
    befores = [events.get(_path(game_id), token=token).json()["last_seq"] for token in tokens]
    reads = []
    real = game_selectors.game_log_read

    def counting(*, game_id, after):
        reads.append(after)
        return real(game_id=game_id, after=after)

    monkeypatch.setattr(game_selectors, "game_log_read", counting)
    rng = random.Random(11)

    async def follow():
        calls = [
            await events.open_call(
                _path(game_id), token=token, headers={**STREAM, "Last-Event-ID": str(before)}
            )
            for token, before in zip(tokens, befores, strict=True)
        ]
        texts = [""] * len(calls)
        # Each call's opening answer read the log once, and so does each stream once subscribed.
        settled = 2 * len(calls)

        async def read(index):
            async for chunk in calls[index].chunks():
                texts[index] += chunk

        tasks = [asyncio.create_task(read(i)) for i in range(len(calls))]
        try:
            subscribed = time.monotonic() + 15
            while len(reads) < settled:
                assert time.monotonic() < subscribed, (reads, texts)
                await asyncio.sleep(0.01)
            for _ in range(8):
                assert await sync_to_async(step)(setup["clients"], game_id, rng)
            expected = []
            for token, before in zip(tokens, befores, strict=True):
                answer = await sync_to_async(events.get)(_path(game_id), token=token, query={"after": before})
                expected.append(answer.json()["events"])
            end = time.monotonic() + 15
            while time.monotonic() < end and any(
                len(sse.parse(text)) < len(logged) for text, logged in zip(texts, expected, strict=True)
            ):
                await asyncio.sleep(0.05)
            return texts, expected, len(reads) - settled - len(tokens)
        finally:
            for task in tasks:
                task.cancel()
            for call in calls:
                await call.close()

    texts, expected, stream_reads = async_to_sync(follow)()
    for seat, (text, logged) in enumerate(zip(texts, expected, strict=True)):
        assert sse.parse(text) == logged and logged, seat
    private = [event for logged in expected for event in logged if "private_to" in event]
    assert private, "the moves should include a seat's private event"
    # Reads only for the wake-ups that carried an entry for some seats, not one per move and stream.
    assert stream_reads < len(tokens) * 8


def _busy(*args, **kwargs):
    # What Django raises when psycopg_pool's getconn() times out (django/db/utils.py wraps it).
    try:
        raise PoolTimeout("couldn't get a connection after 10.00 sec")
    except PoolTimeout as exc:
        raise OperationalError("couldn't get a connection after 10.00 sec") from exc


def test_a_stream_whose_log_read_finds_the_server_busy_ends_after_what_it_sent(
    make_table, monkeypatch, settings
):
    settings.EVENTS_SSE_MAX_SECONDS = 20
    setup = make_table()
    game_id = setup["game"]
    opening = _log(setup["clients"][1], game_id)["events"]
    real = game_selectors.game_log_read
    calls = []

    def busy_after_the_first(**kwargs):
        calls.append(1)
        return real(**kwargs) if len(calls) == 1 else _busy()

    monkeypatch.setattr(game_selectors, "game_log_read", busy_after_the_first)
    started = time.monotonic()
    answer = events.get(_path(game_id), token=setup["tokens"][1], headers=STREAM)
    assert time.monotonic() - started < 10  # ended at the busy read, not at EVENTS_SSE_MAX_SECONDS
    assert answer.body.decode().startswith("retry: 2000\n")  # the client comes back by itself
    assert sse.parse(answer.body.decode()) == opening


def test_the_feed_streams_and_resumes_after_last_event_id(make_table, settings):
    settings.EVENTS_SSE_MAX_SECONDS = 0.3
    setup = make_table()
    token = setup["tokens"][0]
    answer = events.get("/api/v1/me/events", token=token, headers=STREAM)
    assert answer.status == 200 and answer["Content-Type"].startswith("text/event-stream")
    text = answer.body.decode()
    assert "id: 1\nevent: deal_started\ndata: " in text
    # Reconnecting with Last-Event-ID resumes after it.
    again = events.get("/api/v1/me/events", token=token, headers={**STREAM, "Last-Event-ID": "1"})
    assert again.status == 200 and "id: 1\n" not in again.body.decode()
    assert sse.parse(again.body.decode()) == sse.parse(text)[1:]
    assert_error(events.get("/api/v1/me/events", headers=STREAM), 401, "not_authenticated")
