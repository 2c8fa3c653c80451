"""The matcher (matchmaking/matching.py, docs/matchmaking.md "Matching"): who is seated with whom, exactly
once.

Times are given to `tickets_match(now=...)` instead of sleeping: tickets are made "now" and the matcher
is told how much later it runs.
"""

import random
import threading
from collections import Counter
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import FeedEvent, Sanction, SanctionKind, User
from games.models import Game, GameStatus
from matchmaking import matching, selectors, tickets
from matchmaking.models import Seat, Table, TableStatus, Ticket, TicketStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def queue(make_user):
    """`queue(rating=0.0, preset="weihai", bots=True, party="", rated=True)` -> a waiting Ticket."""

    def make(
        *,
        rating: float = 0.0,
        preset: str = "weihai",
        bots: bool = True,
        party: str = "",
        rated=True,
        level="",
    ):
        user, _ = make_user()
        ticket = tickets.ticket_create(
            user=user, preset=preset, options={}, rated=rated, bots=bots, party=party, bot_level=level
        )
        Ticket.objects.filter(pk=ticket.pk).update(rating=rating)
        ticket.refresh_from_db()
        return ticket

    return make


def _later(seconds: float):
    return timezone.now() + timedelta(seconds=seconds)


def _seated_users(table_id: int) -> list[int]:
    return list(Seat.objects.filter(table_id=table_id).order_by("seat").values_list("user_id", flat=True))


def test_five_close_tickets_are_seated_at_one_new_table_whose_deal_starts(queue):
    group = [queue(rating=r) for r in (10.0, 11.0, 12.0, 13.0, 14.0)]
    assert matching.tickets_match() == 5
    rows = list(Ticket.objects.filter(pk__in=[t.pk for t in group]))
    assert {t.status for t in rows} == {TicketStatus.MATCHED}
    table = Table.objects.get(pk=rows[0].table_id)
    assert table.matched and table.rated and not table.private and table.status == TableStatus.PLAYING
    assert sorted(_seated_users(table.pk)) == sorted(t.user_id for t in rows)
    game = Game.objects.get(table=table)
    assert game.status == GameStatus.RUNNING
    for ticket in rows:
        assert ticket.table_id == table.pk and ticket.game_id == game.pk and ticket.matched_at is not None
        assert Seat.objects.get(table=table, user_id=ticket.user_id).seat == ticket.seat
        feed = FeedEvent.objects.filter(user_id=ticket.user_id, type="ticket_matched").get()
        assert feed.data == {
            "type": "ticket_matched",
            "ticket": ticket.pk,
            "table": table.pk,
            "game": game.pk,
            "seat": ticket.seat,
        }


def test_the_feed_says_ticket_matched_before_the_deal_it_starts(queue):
    """docs/client-guide.md §2: a client follows its feed for `ticket_matched`, then the deal's
    `deal_started` and prompts; a matched player's feed tells them in that order."""
    group = [queue() for _ in range(5)]
    assert matching.tickets_match() == 5
    for ticket in group:
        rows = FeedEvent.objects.filter(user_id=ticket.user_id).order_by("seq")
        types = list(rows.values_list("type", flat=True))
        assert types[:2] == ["ticket_matched", "deal_started"], types


def test_a_matched_table_is_not_listed_in_the_lobby(queue):
    for _ in range(5):
        queue()
    matching.tickets_match()
    assert Table.objects.filter(matched=True).count() == 1
    for status in TableStatus.values:
        assert not selectors.tables_lobby(status=status, preset=None).exists()


def test_four_tickets_without_bots_wait_and_nothing_is_created(queue):
    for _ in range(4):
        queue(bots=False)
    assert matching.tickets_match(now=_later(50)) == 0
    assert not Table.objects.exists()
    assert set(Ticket.objects.values_list("status", flat=True)) == {"waiting"}


def test_tickets_of_different_presets_options_or_rated_are_never_mixed(queue, make_user):
    """Each pool is one short of a table, and any two pools that differ in one thing only (preset,
    rated, options) would make five together: mixing on any of them seats somebody."""
    for _ in range(3):
        queue(preset="weihai")  # 3 + 2 campus: mixing presets; 3 + 2 unrated: mixing `rated`
    for _ in range(2):
        queue(preset="campus")
        queue(preset="weihai", rated=False)
    for roasting in (True, True, True, False, False):  # mixing options
        user, _ = make_user()
        tickets.ticket_create(user=user, preset="lianzhong_simple", options={"roasting": roasting})
    assert matching.tickets_match(now=_later(5)) == 0
    assert not Table.objects.exists()
    assert set(Ticket.objects.values_list("status", flat=True)) == {"waiting"}


def test_options_equal_to_the_defaults_share_a_queue_with_no_options(make_user):
    for options in ({}, {"qiangdu": True}, {"roasting": False}, {}, {"must_last": None}):
        user, _ = make_user()
        tickets.ticket_create(user=user, preset="lianzhong_simple", options=options, bots=False)
    assert matching.tickets_match() == 5


def test_the_spread_widens_with_the_oldest_tickets_wait(queue, settings):
    settings.MATCHMAKING_SPREAD_BASE, settings.MATCHMAKING_SPREAD_PER_SECOND = 5.0, 0.5
    for rating in (0.0, 5.0, 10.0, 15.0, 20.0):
        queue(rating=rating, bots=False)
    # Spread 20 needs 5 + 0.5 x wait >= 20: a wait of 30 s.
    assert matching.tickets_match(now=_later(25)) == 0
    assert matching.tickets_match(now=_later(31)) == 5


def test_closest_ratings_are_seated_together(queue):
    low = [queue(rating=r, bots=False) for r in (0.0, 1.0, 2.0, 3.0, 4.0)]
    high = [queue(rating=r, bots=False) for r in (40.0, 41.0, 42.0, 43.0, 44.0)]
    assert matching.tickets_match() == 10
    for group in (low, high):
        tables = set(Ticket.objects.filter(pk__in=[t.pk for t in group]).values_list("table_id", flat=True))
        assert len(tables) == 1


def test_bots_fill_the_empty_seats_after_the_bots_wait(queue, settings):
    settings.MATCHMAKING_BOTS_AFTER = 20
    humans = [queue(rating=r) for r in (0.0, 1.0)]
    assert matching.tickets_match(now=_later(10)) == 0
    assert matching.tickets_match(now=_later(21)) == 2
    table_id = Ticket.objects.get(pk=humans[0].pk).table_id
    users = User.objects.filter(pk__in=_seated_users(table_id))
    bot_users = [u for u in users if u.is_bot]
    assert len(users) == 5 and len(bot_users) == 3
    assert all(not u.has_usable_password() for u in bot_users)
    assert Game.objects.get(table_id=table_id).bots == [u.is_bot for u in _users_by_seat(table_id)]


def test_tickets_asking_different_bot_levels_never_share_a_table(queue, settings):
    settings.MATCHMAKING_BOTS_AFTER = 20
    hard = [queue(level="hard") for _ in range(3)]
    plain = [queue() for _ in range(2)]
    assert matching.tickets_match(now=_later(5)) == 0
    assert matching.tickets_match(now=_later(21)) == 5
    hard_table = Table.objects.get(pk=Ticket.objects.get(pk=hard[0].pk).table_id)
    plain_table = Table.objects.get(pk=Ticket.objects.get(pk=plain[0].pk).table_id)
    assert hard_table != plain_table
    assert (hard_table.bot_level, plain_table.bot_level) == ("hard", "")
    assert {t.table_id for t in Ticket.objects.filter(pk__in=[t.pk for t in hard])} == {hard_table.pk}


def _users_by_seat(table_id: int) -> list[User]:
    by_id = {u.pk: u for u in User.objects.filter(seats__table_id=table_id)}
    return [by_id[user_id] for user_id in _seated_users(table_id)]


def test_a_ticket_without_bots_is_never_seated_with_bots(queue):
    queue(bots=False)
    queue(bots=True)
    assert matching.tickets_match(now=_later(40)) == 1
    assert Ticket.objects.filter(bots=False, status="waiting").count() == 1


def test_two_tables_at_once_get_distinct_bots_and_free_bots_are_reused(queue):
    first, second = queue(rating=0.0), queue(rating=40.0)
    assert matching.tickets_match(now=_later(25)) == 2
    tables = [Ticket.objects.get(pk=t.pk).table_id for t in (first, second)]
    assert tables[0] != tables[1]
    bots = [set(_seated_users(t)) - {first.user_id, second.user_id} for t in tables]
    assert len(bots[0]) == len(bots[1]) == 4 and not bots[0] & bots[1]
    # Once those tables are over, the same bots serve the next table: the pool does not grow.
    Table.objects.filter(pk__in=tables).update(status=TableStatus.FINISHED)
    queue(rating=0.0)
    pool_before = User.objects.filter(is_bot=True).count()
    assert matching.tickets_match(now=_later(25)) == 1
    assert User.objects.filter(is_bot=True).count() == pool_before == 8


def test_a_party_waits_to_gather_then_sits_together_unrated_with_strangers(queue, settings):
    settings.MATCHMAKING_PARTY_GATHER = 10
    party = [queue(party="p1", bots=False) for _ in range(2)]
    strangers = [queue(rated=False, bots=False) for _ in range(3)]
    rated = [queue(bots=False) for _ in range(3)]
    assert matching.tickets_match(now=_later(5)) == 0
    assert matching.tickets_match(now=_later(11)) == 5
    seated = Ticket.objects.filter(pk__in=[t.pk for t in party + strangers])
    assert {t.status for t in seated} == {"matched"} and len({t.table_id for t in seated}) == 1
    table = Table.objects.get(pk=seated[0].table_id)
    assert table.rated is False
    still = Ticket.objects.filter(pk__in=[t.pk for t in rated]).values_list("status", flat=True)
    assert set(still) == {"waiting"}


def test_a_party_of_four_is_seated_at_once_with_bots_only_after_the_wait(queue, settings):
    settings.MATCHMAKING_BOTS_AFTER = 20
    party = [queue(party="four") for _ in range(4)]
    assert matching.tickets_match(now=_later(1)) == 0
    assert matching.tickets_match(now=_later(21)) == 4
    table_id = Ticket.objects.get(pk=party[0].pk).table_id
    assert {t.table_id for t in Ticket.objects.filter(pk__in=[t.pk for t in party])} == {table_id}
    assert sum(u.is_bot for u in _users_by_seat(table_id)) == 1


def test_two_parties_never_share_a_table_beyond_five(queue, settings):
    settings.MATCHMAKING_PARTY_GATHER = 0
    [queue(party="a", bots=False) for _ in range(3)]
    [queue(party="b", bots=False) for _ in range(3)]
    # 3 + 3 > 5: neither party is split, so nothing is seated.
    assert matching.tickets_match(now=_later(1)) == 0


def test_a_fifth_party_member_is_refused_409(queue, make_user, make_client):
    for _ in range(4):
        queue(party="full")
    _, token = make_user()
    response = make_client(token).post(
        "/api/v1/matchmaking/tickets", {"preset": "weihai", "party": "full"}, format="json"
    )
    assert response.status_code == 409 and response.json()["code"] == "table_full"
    assert Ticket.objects.filter(party="full").count() == 4


def test_a_user_banned_while_waiting_is_not_seated(queue):
    group = [queue() for _ in range(5)]
    Sanction.objects.create(user_id=group[0].user_id, kind=SanctionKind.QUEUE_BAN, reason="test")
    assert matching.tickets_match() == 0
    assert Ticket.objects.get(pk=group[0].pk).status == TicketStatus.CANCELLED
    assert not Seat.objects.filter(user_id=group[0].user_id).exists()


def test_fifty_mixed_tickets_end_matched_or_waiting_and_every_table_fits_its_window(queue, settings):
    rng = random.Random(9)
    made = [
        queue(
            rating=rng.uniform(-10, 40),
            preset=rng.choice(["weihai", "campus", "wuren"]),
            bots=rng.random() < 0.3,
        )
        for _ in range(50)
    ]
    for seconds in (0, 5, 10, 15, 25, 40):
        now = _later(seconds)
        matching.tickets_match(now=now)
        rows = list(Ticket.objects.filter(pk__in=[t.pk for t in made]))
        statuses = Counter(t.status for t in rows)
        assert set(statuses) <= {"matched", "waiting"} and sum(statuses.values()) == 50
        for table_id in {t.table_id for t in rows if t.table_id}:
            group = [t for t in rows if t.table_id == table_id]
            assert len({t.preset for t in group}) == 1
            window = matching.allowed_spread(group=group, now=group[0].matched_at)
            assert matching.rating_spread(group) <= window
            seated_humans = [u.pk for u in _users_by_seat(table_id) if not u.is_bot]
            assert sorted(seated_humans) == sorted(t.user_id for t in group)
    # Every human sits at most once.
    humans = Seat.objects.filter(user__is_bot=False).values_list("user_id", flat=True)
    assert len(humans) == len(set(humans)) == Ticket.objects.filter(status="matched").count()


# --- Concurrency (real PostgreSQL connections, one per thread) -------------------------------------------


def _in_threads(count: int, call) -> list:
    barrier = threading.Barrier(count)
    results: list = [None] * count

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = call(index)
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


@pytest.mark.django_db(transaction=True)
def test_matcher_runs_at_once_never_seat_one_ticket_twice(queue):
    made = [queue(rating=float(i % 7)) for i in range(23)]
    results = _in_threads(4, lambda _: matching.tickets_match(now=_later(25)))
    assert all(isinstance(r, int) for r in results), results
    rows = list(Ticket.objects.filter(pk__in=[t.pk for t in made]))
    assert sum(results) == sum(t.status == "matched" for t in rows) == 23
    humans = list(Seat.objects.filter(user__is_bot=False).values_list("user_id", flat=True))
    assert sorted(humans) == sorted(t.user_id for t in rows)
    for table_id in {t.table_id for t in rows}:
        assert Seat.objects.filter(table_id=table_id).count() == 5
    bots = list(Seat.objects.filter(user__is_bot=True).values_list("user_id", flat=True))
    assert len(bots) == len(set(bots))


@pytest.mark.django_db(transaction=True)
def test_a_ticket_being_cancelled_while_the_matcher_runs_is_never_seated(queue):
    made = [queue() for _ in range(6)]
    target = made[0]
    locked, release = threading.Event(), threading.Event()

    def cancel_slowly() -> None:
        # The cancel holds the ticket's row lock while the matcher runs, then commits.
        try:
            with transaction.atomic():
                ticket = Ticket.objects.select_for_update().get(pk=target.pk)
                locked.set()
                release.wait(timeout=20)
                tickets.ticket_settle(ticket=ticket, status=TicketStatus.CANCELLED)
        finally:
            connection.close()

    thread = threading.Thread(target=cancel_slowly)
    thread.start()
    assert locked.wait(timeout=10)
    assert matching.tickets_match() == 5
    release.set()
    thread.join(timeout=30)
    assert Ticket.objects.get(pk=target.pk).status == TicketStatus.CANCELLED
    assert not Seat.objects.filter(user_id=target.user_id).exists()
    assert matching.tickets_match(now=_later(40)) == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("round_", range(3))
def test_cancel_racing_the_matcher_ends_either_cancelled_or_seated_never_both(round_, queue):
    made = [queue() for _ in range(5)]
    target = made[round_]

    def act(index: int):
        if index == 0:
            return matching.tickets_match()
        try:
            return tickets.ticket_cancel(ticket_id=target.pk, user=target.user).status
        except Exception as exc:  # noqa: BLE001
            return getattr(exc, "code", exc)

    matched, cancel = _in_threads(2, act)
    ticket = Ticket.objects.get(pk=target.pk)
    seated = Seat.objects.filter(user_id=target.user_id).exists()
    if ticket.status == TicketStatus.MATCHED:
        assert seated and matched == 5 and cancel == "ticket_matched"
    else:
        assert ticket.status == TicketStatus.CANCELLED and not seated and cancel == "cancelled"
        assert matched == 0 and not Table.objects.exists()


def test_the_beat_task_runs_the_matcher_every_interval(queue, settings):
    from config.celery import app
    from matchmaking import tasks

    entry = next(
        e for e in settings.CELERY_BEAT_SCHEDULE.values() if e["task"] == "matchmaking.tickets_match"
    )
    assert entry["schedule"] == settings.MATCHMAKING_INTERVAL
    # Found by the worker's autodiscovery under the name beat sends.
    assert "matchmaking.tickets_match" in app.tasks
    for _ in range(5):
        queue()
    assert tasks.tickets_match.apply().get() == 5
    assert Ticket.objects.filter(status=TicketStatus.MATCHED).count() == 5


def test_one_run_seats_every_ready_table_across_several_transactions(queue, monkeypatch):
    monkeypatch.setattr(matching, "TABLES_PER_TRANSACTION", 2)
    made = [queue(rating=float(i)) for i in range(25)]
    assert matching.tickets_match() == 25
    assert Table.objects.count() == 5
    assert not Ticket.objects.filter(pk__in=[t.pk for t in made], status="waiting").exists()


@pytest.mark.parametrize("rated", [True, False])
def test_deals_at_a_table_matched_from_unrated_tickets_are_not_rated(rated, make_table):
    from accounts.models import RatingChange
    from games import services as game_services
    from tests.api.playing import play_deal
    from tests.conftest import established

    setup = make_table()
    established(setup["users"])  # a deal of accounts made for it is not rated
    Table.objects.filter(pk=setup["table"]).update(rated=rated)
    game = play_deal(setup["clients"], setup["game"], random.Random(3))
    assert game.status == GameStatus.OVER
    assert game_services.game_ratings_update(game_id=game.pk) is rated
    assert RatingChange.objects.filter(game_id=game.pk).exists() is rated
