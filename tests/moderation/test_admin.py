"""The moderators' admin (issue 10 item 5), through Django's test client: every power as an admin
action that asks for a reason first and writes the audit entry; the group's rights; small pages."""

import pytest
from auditlog.models import LogEntry
from django.contrib.auth.models import Group

from accounts.models import ModerationAction, Sanction, User
from games.models import Game
from matchmaking.models import Report, Seat, Table
from tests.conftest import deal_end_steps
from tests.moderation.helpers import make_moderator

pytestmark = pytest.mark.django_db


@pytest.fixture
def moderator(make_user, make_client, client):
    user, _ = make_moderator(make_user, make_client)
    client.force_login(user)
    return user


def _act(client, changelist, action, ids, **form):
    data = {"action": action, "_selected_action": [str(i) for i in ids], **form}
    return client.post(changelist, data, follow=True)


def _two_steps(client, changelist, action, ids, **form):
    """The first post shows the reason page and changes nothing; the second applies."""
    entries = ModerationAction.objects.count()
    page = _act(client, changelist, action, ids)
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="reason"' in html and 'id="moderation-apply"' in html
    assert ModerationAction.objects.count() == entries
    return _act(client, changelist, action, ids, apply="1", **form)


def _entry(action):
    entry = ModerationAction.objects.filter(action=action).latest("id")
    assert entry.source == "admin"
    return entry


def test_sanction_from_the_user_list(client, moderator, make_user):
    target, _ = make_user()
    response = _two_steps(
        client,
        "/admin/accounts/user/",
        "sanction_users",
        [target.pk],
        reason="spam",
        kind="ban",
        expires_at="2099-01-01 00:00",
    )
    assert response.status_code == 200
    sanction = Sanction.objects.get(user=target)
    assert sanction.moderator == moderator and sanction.reason == "spam" and sanction.expires_at.year == 2099
    assert _entry("sanction").subject_user_id == target.pk
    # django-auditlog keeps the model history with the admin user as actor.
    assert LogEntry.objects.get_for_object(sanction).get().actor == moderator


def test_a_missing_reason_shows_the_form_again_and_changes_nothing(client, moderator, make_user):
    target, _ = make_user()
    page = _act(
        client, "/admin/accounts/user/", "sanction_users", [target.pk], apply="1", kind="ban", reason=""
    )
    assert page.status_code == 200 and "This field is required" in page.content.decode()
    assert not Sanction.objects.exists() and not ModerationAction.objects.exists()


def test_sanction_and_abort_from_the_report_queue(client, moderator, make_table):
    setup = make_table()
    report = Report.objects.create(
        reporter=setup["users"][0], user=setup["users"][1], game_id=setup["game"], reason="cheating"
    )
    queue = client.get("/admin/matchmaking/report/?status__exact=open")
    assert queue.status_code == 200 and f"/admin/games/game/{setup['game']}/change/" in queue.content.decode()
    _two_steps(
        client, "/admin/matchmaking/report/", "sanction_reported", [report.pk], reason="bot", kind="queue_ban"
    )
    assert Sanction.objects.get().user == setup["users"][1]
    assert Report.objects.get().status == "actioned"
    _two_steps(client, "/admin/matchmaking/report/", "abort_reported", [report.pk], reason="bot deal")
    game = Game.objects.get(pk=setup["game"])
    assert game.status == "aborted" and game.unscored
    deal_end_steps()  # the table's own step, after the commit
    assert Table.objects.get(pk=setup["table"]).status == "dissolved"
    assert _entry("abort").target_id == setup["game"]


def test_dismiss_from_the_report_queue(client, moderator, make_user):
    reporter, _ = make_user()
    reported, _ = make_user()
    report = Report.objects.create(reporter=reporter, user=reported, reason="abuse")
    _two_steps(client, "/admin/matchmaking/report/", "dismiss_reports", [report.pk], reason="no evidence")
    report.refresh_from_db()
    assert report.status == "dismissed" and report.handled_by == moderator and report.note == "no evidence"
    assert _entry("dismiss").target_id == report.pk


def test_revoke_from_the_sanction_list(client, moderator, make_user):
    target, _ = make_user()
    sanction = Sanction.objects.create(user=target, kind="ban", reason="old")
    _two_steps(client, "/admin/accounts/sanction/", "revoke_sanctions", [sanction.pk], reason="appeal")
    sanction.refresh_from_db()
    assert sanction.revoked_at is not None and sanction.revoked_by == moderator
    assert _entry("revoke").reason == "appeal"


def test_abort_from_the_deal_list(client, moderator, make_table):
    setup = make_table()
    _two_steps(client, "/admin/games/game/", "abort_games", [setup["game"]], reason="stuck deal")
    assert Game.objects.get(pk=setup["game"]).unscored
    # A second abort is refused and reported, and writes no second entry.
    page = _act(client, "/admin/games/game/", "abort_games", [setup["game"]], apply="1", reason="again")
    assert "This deal is over." in page.content.decode()
    assert ModerationAction.objects.filter(action="abort").count() == 1


def test_remove_a_player_from_the_seat_list(client, moderator, make_table):
    setup = make_table()
    row = Seat.objects.get(table_id=setup["table"], seat=2)
    _two_steps(client, "/admin/matchmaking/seat/", "remove_players", [row.pk], reason="abusive chat")
    assert not Seat.objects.filter(pk=row.pk).exists()
    entry = _entry("remove_player")
    assert entry.subject_user_id == setup["users"][2].pk and entry.details == {"seat": 2}


def test_the_moderators_group_has_exactly_its_rights():
    rights = {
        f"{p.content_type.app_label}.{p.codename}"
        for p in Group.objects.get(name="moderators").permissions.all()
    }
    assert rights == {
        "accounts.view_user",
        "accounts.view_sanction",
        "accounts.add_sanction",
        "accounts.revoke_sanction",
        "accounts.view_moderationaction",
        "games.view_game",
        "games.view_event",
        "matchmaking.view_table",
        "matchmaking.view_seat",
        "matchmaking.view_penalty",
        "matchmaking.view_report",
        "matchmaking.dismiss_report",
        "matchmaking.abort_game",
        "matchmaking.remove_player",
        "auditlog.view_logentry",
    }


@pytest.mark.django_db(transaction=True)
def test_the_moderators_group_is_made_again_after_a_flush():
    """A transactional test's teardown, or an operator's `flush`, empties every table: post_migrate makes
    the group again, with its rights (matchmaking/moderators.py), as Django makes its permissions."""
    from django.core.management import call_command

    from matchmaking.moderators import GROUP, PERMISSIONS

    Group.objects.filter(name=GROUP).delete()
    call_command("flush", interactive=False, verbosity=0)
    rights = {(p.content_type.app_label, p.codename) for p in Group.objects.get(name=GROUP).permissions.all()}
    assert rights == set(PERMISSIONS)


def test_a_moderator_cannot_edit_users_or_see_cards(client, moderator, make_user, make_table):
    target, _ = make_user()
    page = client.post(
        f"/admin/accounts/user/{target.pk}/change/", {"username": "renamed", "is_staff": "on"}, follow=True
    )
    assert page.status_code == 403
    target.refresh_from_db()
    assert target.username != "renamed" and not target.is_staff
    assert client.post(f"/admin/accounts/user/{target.pk}/delete/", {"post": "yes"}).status_code == 403
    assert User.objects.filter(pk=target.pk).exists()
    setup = make_table()
    html = client.get(f"/admin/games/game/{setup['game']}/change/").content.decode()
    assert "seed" not in html and "hands" not in html


def test_nobody_can_change_or_delete_an_audit_entry_in_the_admin(client, make_user):
    target, _ = make_user()
    root = User.objects.create_superuser(username="root", password="correct-horse-9")
    entry = ModerationAction.objects.create(
        moderator=root, action="sanction", target_type="sanction", target_id=1, reason="r", source="api"
    )
    client.force_login(root)
    url = f"/admin/accounts/moderationaction/{entry.pk}/change/"
    page = client.get(url)
    assert page.status_code == 200 and 'name="reason"' not in page.content.decode()
    assert client.post(url, {"reason": "changed", "action": "abort"}).status_code == 403
    assert (
        client.post(f"/admin/accounts/moderationaction/{entry.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )
    listing = client.post(
        "/admin/accounts/moderationaction/",
        {"action": "delete_selected", "_selected_action": [entry.pk], "post": "yes"},
        follow=True,
    )
    assert listing.status_code == 200
    entry.refresh_from_db()
    assert entry.reason == "r" and entry.action == "sanction"


def test_list_pages_render_for_a_moderator(client, moderator, make_table):
    setup = make_table()
    Report.objects.create(
        reporter=setup["users"][0], user=setup["users"][1], game_id=setup["game"], reason="abuse"
    )
    for page in (
        "/admin/accounts/user/?q=player",
        "/admin/accounts/sanction/",
        "/admin/accounts/moderationaction/",
        "/admin/matchmaking/report/",
        "/admin/matchmaking/table/",
        "/admin/matchmaking/seat/",
        "/admin/matchmaking/penalty/",
        "/admin/games/game/",
        f"/admin/games/event/?game__id__exact={setup['game']}",
        "/admin/auditlog/logentry/",
    ):
        assert client.get(page).status_code == 200, page


def test_plural_labels_read_right(client):
    root = User.objects.create_superuser(username="root", password="correct-horse-9")
    client.force_login(root)
    html = client.get("/admin/").content.decode()
    assert "Penalties" in html and "Side biases" in html
    assert "Penaltys" not in html and "Side biass" not in html


def test_a_long_deals_page_stays_small(client, make_table):
    from games import services as game_services

    setup = make_table()
    # All five on trustee: the whole deal plays out, some hundreds of events.
    for seat in range(5):
        game_services.game_trustee_set(game_id=setup["game"], user=setup["users"][seat], on=True)
    game = Game.objects.get(pk=setup["game"])
    for _ in range(50):
        if game.status != "running":
            break
        game_services.game_trustee_autoplay(game_id=game.pk, version=game.version)
        game.refresh_from_db()
    assert game.last_seq > 100
    root = User.objects.create_superuser(username="root", password="correct-horse-9")
    client.force_login(root)
    page = client.get(f"/admin/games/game/{game.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert len(html) < 60_000, len(html)
    assert f"All {game.last_seq} events, paged" in html and "more characters" in html
    events = client.get(f"/admin/games/event/?game__id__exact={game.pk}")
    assert events.status_code == 200 and len(events.content) < 100_000


def test_model_history_records_the_trusted_address_not_a_forged_one(client, moderator, make_user):
    target, _ = make_user()
    data = {
        "action": "sanction_users",
        "_selected_action": [str(target.pk)],
        "apply": "1",
        "kind": "queue_ban",
        "reason": "spam",
    }
    client.post("/admin/accounts/user/", data, HTTP_X_FORWARDED_FOR="6.6.6.6", REMOTE_ADDR="192.0.2.9")
    entry = LogEntry.objects.get_for_object(Sanction.objects.get()).get()
    assert entry.actor == moderator and entry.remote_addr == "192.0.2.9"
