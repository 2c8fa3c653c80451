"""Quick-match tickets over HTTP (docs/matchmaking.md "Tickets"): queue, poll, cancel, expire, refuse."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import Rating, Sanction, SanctionKind
from games import engine
from games.models import Game
from infra.api.errors import ApiError
from infra.timestamps import utc_iso
from matchmaking import matching, tickets
from matchmaking.models import Ticket, TicketStatus
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db

TICKETS = "/api/v1/matchmaking/tickets"
TICKET_FIELDS = {
    "bot_level",
    "id",
    "status",
    "preset",
    "options",
    "rated",
    "bots",
    "party",
    "created_at",
    "table",
    "game",
    "seat",
}


@pytest.fixture
def player(make_user, make_client):
    user, token = make_user()
    return user, make_client(token)


def _queue(client, **payload) -> dict:
    response = client.post(TICKETS, {"preset": "weihai", **payload}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def test_queueing_answers_a_waiting_ticket_with_the_contract_fields(player):
    user, client = player
    Rating.objects.create(user=user, preset="weihai", mu=30, sigma=4, ordinal=18.0)
    body = _queue(client, bots=False)
    assert set(body) == TICKET_FIELDS
    assert body["status"] == "waiting" and body["preset"] == "weihai" and body["options"] == {}
    assert body["rated"] is True and body["bots"] is False and body["party"] == ""
    assert body["table"] is None and body["game"] is None and body["seat"] is None
    assert body["bot_level"] is None  # the server's default
    # The rating is snapshotted for the matcher, not shown.
    assert Ticket.objects.get(pk=body["id"]).rating == 18.0


def test_a_player_without_a_rating_starts_at_openskills_initial_ordinal(player):
    _, client = player
    ticket = Ticket.objects.get(pk=_queue(client)["id"])
    assert ticket.rating == pytest.approx(0.0)


def test_a_ticket_may_ask_for_a_bot_level(player):
    _, client = player
    body = _queue(client, bot_level="hard")
    assert body["bot_level"] == "hard" and Ticket.objects.get(pk=body["id"]).bot_level == "hard"


def test_a_party_ticket_is_always_unrated(player):
    _, client = player
    body = _queue(client, party="friends-1", rated=True)
    assert body["party"] == "friends-1" and body["rated"] is False


@pytest.mark.parametrize(
    "payload",
    [
        {"preset": "nope"},
        {"preset": "weihai", "options": {"no_such_option": True}},
        {"preset": "weihai", "rated": "maybe"},
        {"preset": "weihai", "colour": "red"},
        {"preset": "weihai", "party": "has spaces"},
        {"preset": "weihai", "party": "x" * 17},
        {"preset": "weihai", "bot_level": "grandmaster"},
        {"preset": "weihai", "bot_level": 2},
        {"preset": "weihai", "bot_level": None},
        {},
    ],
)
def test_bad_ticket_requests_are_400_and_queue_nothing(player, payload):
    _, client = player
    assert_error(client.post(TICKETS, payload, format="json"), 400, "invalid_request")
    assert not Ticket.objects.exists()


def test_a_second_waiting_ticket_is_409_ticket_exists_and_changes_nothing(player):
    user, client = player
    first = _queue(client)
    body = assert_error(client.post(TICKETS, {"preset": "campus"}, format="json"), 409, "ticket_exists")
    assert body["extra"]["ticket"] == first["id"]
    assert list(Ticket.objects.filter(user=user).values_list("pk", "status")) == [(first["id"], "waiting")]


def test_after_cancelling_one_may_queue_again(player):
    _, client = player
    first = _queue(client)
    assert client.delete(f"{TICKETS}/{first['id']}").json()["status"] == "cancelled"
    second = _queue(client)
    assert second["id"] != first["id"] and second["status"] == "waiting"


def test_a_stale_waiting_ticket_expires_instead_of_blocking_a_new_one(player, settings):
    user, client = player
    first = _queue(client)
    Ticket.objects.filter(pk=first["id"]).update(
        last_polled_at=timezone.now() - timedelta(seconds=settings.MATCHMAKING_TICKET_TTL + 1)
    )
    second = _queue(client)
    assert Ticket.objects.get(pk=first["id"]).status == TicketStatus.EXPIRED
    assert Ticket.objects.get(pk=second["id"]).status == TicketStatus.WAITING


def test_a_banned_user_is_403_banned_and_queues_nothing(make_user, make_client):
    _, token = make_user(banned=True)
    body = assert_error(make_client(token).post(TICKETS, {"preset": "weihai"}, format="json"), 403, "banned")
    assert body["extra"] == {"kind": "ban", "expires_at": None}
    assert not Ticket.objects.exists()


def test_a_queue_banned_user_is_403_banned_until_the_sanction_ends(make_user, make_client):
    user, token = make_user()
    ends = timezone.now() + timedelta(hours=2)
    Sanction.objects.create(user=user, kind=SanctionKind.QUEUE_BAN, reason="test", expires_at=ends)
    body = assert_error(make_client(token).post(TICKETS, {"preset": "weihai"}, format="json"), 403, "banned")
    assert body["extra"]["kind"] == "queue_ban" and body["extra"]["expires_at"] is not None
    assert not Ticket.objects.exists()
    # The service refuses too (the matcher relies on it for tickets already waiting).
    with pytest.raises(ApiError) as refused:
        tickets.ticket_create(user=user, preset="weihai", options={})
    assert refused.value.code == "banned"
    Sanction.objects.filter(user=user).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert make_client(token).post(TICKETS, {"preset": "weihai"}, format="json").status_code == 201


def test_a_moderators_ban_cancels_the_waiting_ticket(player):
    from matchmaking.moderation import services as moderation_services

    user, client = player
    ticket = _queue(client)
    assert moderation_services.user_tickets_cancel(user_id=user.pk) == 1
    assert Ticket.objects.get(pk=ticket["id"]).status == TicketStatus.CANCELLED


def test_without_a_token_tickets_are_401(make_client):
    assert_error(make_client().post(TICKETS, {"preset": "weihai"}, format="json"), 401, "not_authenticated")


def test_another_users_ticket_is_404_to_read_and_to_cancel_and_stays_waiting(player, make_user, make_client):
    _, client = player
    ticket = _queue(client)
    _, other_token = make_user()
    other = make_client(other_token)
    assert_error(other.get(f"{TICKETS}/{ticket['id']}"), 404, "not_found")
    assert_error(other.delete(f"{TICKETS}/{ticket['id']}"), 404, "not_found")
    assert_error(other.get(f"{TICKETS}/999999"), 404, "not_found")
    assert Ticket.objects.get(pk=ticket["id"]).status == TicketStatus.WAITING


def test_staff_may_read_a_ticket_without_keeping_it_alive(player, make_user, make_client):
    _, client = player
    ticket = _queue(client)
    before = Ticket.objects.get(pk=ticket["id"]).last_polled_at
    _, staff_token = make_user(staff=True)
    response = make_client(staff_token).get(f"{TICKETS}/{ticket['id']}")
    assert response.status_code == 200 and response.json()["id"] == ticket["id"]
    assert Ticket.objects.get(pk=ticket["id"]).last_polled_at == before


def test_the_owners_poll_keeps_the_ticket_alive(player):
    _, client = player
    ticket = _queue(client)
    old = timezone.now() - timedelta(seconds=30)
    Ticket.objects.filter(pk=ticket["id"]).update(last_polled_at=old)
    assert client.get(f"{TICKETS}/{ticket['id']}").json()["status"] == "waiting"
    assert Ticket.objects.get(pk=ticket["id"]).last_polled_at > old


def test_a_ticket_not_polled_for_the_ttl_reads_as_expired(player, settings):
    _, client = player
    ticket = _queue(client)
    Ticket.objects.filter(pk=ticket["id"]).update(
        last_polled_at=timezone.now() - timedelta(seconds=settings.MATCHMAKING_TICKET_TTL + 1)
    )
    assert client.get(f"{TICKETS}/{ticket['id']}").json()["status"] == "expired"
    assert Ticket.objects.get(pk=ticket["id"]).status == TicketStatus.EXPIRED


def test_the_matcher_expires_tickets_not_polled_for_the_ttl_and_seats_none_of_them(make_user, make_client):
    clients = [make_client(make_user()[1]) for _ in range(5)]
    ids = [_queue(client)["id"] for client in clients]
    later = timezone.now() + timedelta(seconds=61)
    assert matching.tickets_match(now=later) == 0
    assert set(Ticket.objects.filter(pk__in=ids).values_list("status", flat=True)) == {"expired"}
    assert not Ticket.objects.filter(table__isnull=False).exists()


def test_cancelling_answers_cancelled_and_a_second_cancel_changes_nothing(player):
    _, client = player
    ticket = _queue(client)
    first = client.delete(f"{TICKETS}/{ticket['id']}")
    assert first.status_code == 200 and first.json()["status"] == "cancelled"
    again = client.delete(f"{TICKETS}/{ticket['id']}")
    assert again.status_code == 200 and again.json()["status"] == "cancelled"


def test_cancelling_a_matched_ticket_is_409_ticket_matched_and_it_stays_seated(make_user, make_client):
    clients = [make_client(make_user()[1]) for _ in range(5)]
    ids = [_queue(client)["id"] for client in clients]
    assert matching.tickets_match() == 5
    matched = Ticket.objects.get(pk=ids[0])
    body = assert_error(clients[0].delete(f"{TICKETS}/{ids[0]}"), 409, "ticket_matched")
    assert body["extra"] == {"table": matched.table_id, "game": matched.game_id, "seat": matched.seat}
    assert Ticket.objects.get(pk=ids[0]).status == TicketStatus.MATCHED
    read = clients[0].get(f"{TICKETS}/{ids[0]}").json()
    assert read["status"] == "matched" and read["table"] == matched.table_id and read["seat"] == matched.seat


def test_stats_count_waiting_tickets_and_the_median_wait_of_recent_matches(make_user, make_client):
    clients = [make_client(make_user()[1]) for _ in range(6)]
    for client in clients[:5]:
        _queue(client, bots=False)
    _queue(clients[5], preset="campus")
    now = timezone.now()
    Ticket.objects.filter(preset="weihai").update(created_at=now - timedelta(seconds=4))
    first = Ticket.objects.filter(preset="weihai").order_by("pk").first()
    Ticket.objects.filter(pk=first.pk).update(created_at=now - timedelta(seconds=10))
    assert matching.tickets_match(now=now) == 5
    stats = {row["preset"]: row for row in clients[0].get("/api/v1/matchmaking/stats").json()["presets"]}
    assert stats["weihai"] == {"preset": "weihai", "waiting": 0, "median_wait": 4.0}
    assert stats["campus"]["waiting"] == 1 and stats["campus"]["median_wait"] is None
    assert set(stats) == set(engine.PRESETS)


def test_a_bad_wait_is_400(player):
    _, client = player
    ticket = _queue(client)
    assert_error(client.get(f"{TICKETS}/{ticket['id']}?wait=soon"), 400, "invalid_request")
    assert_error(client.get(f"{TICKETS}/{ticket['id']}?wait=-1"), 400, "invalid_request")


def test_the_admin_lists_tickets_by_status_and_finds_them_by_username(client, make_user, make_client):
    admin_user, _ = make_user(staff=True)
    admin_user.is_superuser = True
    admin_user.save()
    client.force_login(admin_user)
    waiting_user, token = make_user(username="waiting-one")
    _queue(make_client(token))
    cancelled_user, token = make_user(username="cancelled-one")
    cancelled = _queue(make_client(token))
    make_client(token).delete(f"{TICKETS}/{cancelled['id']}")
    page = client.get("/admin/matchmaking/ticket/", {"status__exact": "waiting"}).content.decode()
    assert "waiting-one" in page and "cancelled-one" not in page
    page = client.get("/admin/matchmaking/ticket/", {"q": "cancelled-one"}).content.decode()
    assert "cancelled-one" in page and "waiting-one" not in page


def test_the_user_admin_filters_bot_users(client, make_user):
    from matchmaking.bots import bot_user_create

    admin_user, _ = make_user(staff=True, username="the-admin")
    admin_user.is_superuser = True
    admin_user.save()
    client.force_login(admin_user)
    make_user(username="plain-human")
    bot = bot_user_create()
    page = client.get("/admin/accounts/user/", {"is_bot__exact": "1"}).content.decode()
    assert bot.username in page and "plain-human" not in page


def test_me_active_lists_the_callers_seats_and_live_waiting_tickets(make_table, make_user, make_client):
    setup = make_table()
    seated = setup["clients"][2]
    body = seated.get("/api/v1/me/active").json()
    feed_last_seq = seated.get("/api/v1/me/events").json()["last_seq"]
    game = Game.objects.get(pk=setup["game"])
    assert body == {
        "tables": [
            {
                "table": setup["table"],
                "seat": 2,
                "game": setup["game"],
                "trustee": False,
                "trustee_locked": False,
                "deal": {
                    "game": game.pk,
                    "phase": engine.from_json(game.state).phase,
                    "your_turn": 2 in engine.to_act(engine.from_json(game.state)),
                    "deadline": utc_iso(game.deadline),
                    "version": game.version,
                    "trustee": False,
                    "trustee_locked": False,
                },
                "table_status": "playing",
                "next_deal_at": None,
                "return_by": None,
            }
        ],
        "tickets": [],
        "feed_last_seq": feed_last_seq,
    }
    assert feed_last_seq > 0
    _, token = make_user()
    client = make_client(token)
    ticket = _queue(client)
    body = client.get("/api/v1/me/active").json()
    assert body["tables"] == [] and [t["id"] for t in body["tickets"]] == [ticket["id"]]
    client.delete(f"{TICKETS}/{ticket['id']}")
    # The cancelled ticket is the feed's one entry (`ticket_cancelled`).
    assert client.get("/api/v1/me/active").json() == {"tables": [], "tickets": [], "feed_last_seq": 1}


def test_the_ticket_admin_shows_the_queue_per_preset(make_user, make_client):
    from django.test import Client

    from matchmaking.models import Ticket

    for _ in range(2):
        user, token = make_user()
        assert (
            make_client(token)
            .post("/api/v1/matchmaking/tickets", {"preset": "campus"}, format="json")
            .status_code
            == 201
        )
    staff, _ = make_user(staff=True)
    staff.is_superuser = True
    staff.save()
    browser = Client()
    browser.force_login(staff)
    page = browser.get("/admin/matchmaking/ticket/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="queue-stats"' in html
    assert "<td>campus</td><td>2</td>" in html
    assert Ticket.objects.filter(preset="campus", status="waiting").count() == 2
