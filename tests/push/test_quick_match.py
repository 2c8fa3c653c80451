"""Issue 39 item 6: a quick match played through the API with one player's app in the background (no
stream: his phone gets the pushes) and another's in the foreground (an open stream: no `your_turn`
push). The pushes are what the loopback Web Push service received and decrypted with each
subscription's keys (tests/push/webpush_service.py), run by the worker's task from the broker."""

import random

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from accounts.models import FeedEvent
from infra import presence
from matchmaking import matching
from matchmaking.models import Ticket
from tests.api.playing import play_deal
from tests.events import client as events
from tests.push.helpers import run_queued_tasks
from tests.push.test_presence import _until, redis_on  # noqa: F401 - the fixture

pytestmark = pytest.mark.django_db(transaction=True)

IDS = {"type", "seq", "ticket", "table", "game", "seat", "version"}


def test_a_quick_match_buzzes_the_backgrounded_phone_in_order_and_the_foreground_one_never_for_its_turns(
    redis_on,  # noqa: F811
    webpush_service,
    make_user,
    make_client,
):
    players = [make_user() for _ in range(5)]
    clients = {user.pk: make_client(token) for user, token in players}
    (away, away_token), (here, here_token) = players[0], players[1]
    away_browser, here_browser = webpush_service.browser(), webpush_service.browser()
    for token, browser, locale in ((away_token, away_browser, "zh-Hans"), (here_token, here_browser, "en")):
        body = {"platform": "webpush", "subscription": browser.subscription(), "locale": locale}
        assert make_client(token).post("/api/v1/me/devices", body, format="json").status_code == 201
    for _, token in players:
        taken = make_client(token).post("/api/v1/matchmaking/tickets", {"preset": "weihai"}, format="json")
        assert taken.status_code == 201, taken.content

    def play() -> int:
        assert matching.tickets_match() == 5
        ticket = Ticket.objects.get(user=away)
        seated = {t.user_id: t.seat for t in Ticket.objects.filter(table_id=ticket.table_id)}
        by_seat = [clients[user_id] for user_id, _ in sorted(seated.items(), key=lambda pair: pair[1])]
        play_deal(by_seat, ticket.game_id, random.Random(39))
        run_queued_tasks()
        return ticket.game_id

    async def scenario() -> int:
        stream = await events.open_call("/api/v1/me/events", token=here_token, headers=events.STREAM)
        try:
            await _until(lambda: presence.watching(user_id=here.pk))
            return await sync_to_async(play)()
        finally:
            await stream.close()

    game_id = async_to_sync(scenario)()

    # The first deal's pushes (play_deal runs the table's steps, so the next deal may have begun and
    # prompted him too: those pushes belong to the next game).
    pushable = FeedEvent.objects.filter(user=away, type__in=["ticket_matched", "your_turn", "deal_over"])
    expected = [(row.seq, row.type) for row in pushable.order_by("seq") if row.data["game"] == game_id]
    pushed = [m for m in webpush_service.delivered(away_browser) if m["data"].get("game") == game_id]
    assert [(m["data"]["seq"], m["data"]["type"]) for m in pushed] == expected
    # Matched, his turns, and the deal's end (the table's step after the deal, run by play_deal).
    assert expected[0][1] == "ticket_matched" and expected[-1][1] == "deal_over" and len(expected) > 2
    assert {m["title"] for m in pushed} == {"匹配成功", "轮到你了", "本局结束"}
    assert all(set(m["data"]) <= IDS for m in webpush_service.delivered(away_browser))

    # The foreground player: his match and the deal's end, never his turns (docs/notifications.md).
    assert [m["data"]["type"] for m in webpush_service.delivered(here_browser)] == [
        "ticket_matched",
        "deal_over",
    ]  # and no your_turn of the next deal either
    assert FeedEvent.objects.filter(user=here, type="your_turn").exists()
