"""Issue 37 item 3, docs/moderation.md "Who may sanction whom": a banned user has no staff power (the
admin refuses his sign-in and every request of his open session), nobody revokes a sanction on
himself, nobody sanctions or revokes for someone of his rank or above unless he is a superuser, and
every refusal is in the audit log. Through the admin with a signed-in test client, and the API."""

import pytest

from accounts.models import ModerationAction, Sanction, User
from tests.conftest import assert_error
from tests.moderation.helpers import make_moderator

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-9"  # make_user's


def _act(client, changelist, action, ids, **form):
    data = {"action": action, "_selected_action": [str(i) for i in ids], "apply": "1", **form}
    return client.post(changelist, data, follow=True)


def _sanction(client, ids, kind="ban"):
    return _act(client, "/admin/accounts/user/", "sanction_users", ids, reason="test", kind=kind)


def _revoke(client, ids):
    return _act(client, "/admin/accounts/sanction/", "revoke_sanctions", ids, reason="appeal")


def _refusals(**fields):
    return list(ModerationAction.objects.filter(action="refused", **fields).order_by("id"))


def _superuser(username="root"):
    return User.objects.create_superuser(username=username, password=PASSWORD)


def _ban(user, kind="ban"):
    return Sanction.objects.create(user=user, kind=kind, reason="earlier ban")


def test_a_banned_moderator_cannot_sign_in_to_the_admin(client, make_user, make_client):
    moderator, _ = make_moderator(make_user, make_client)
    _ban(moderator)
    page = client.post("/admin/login/?next=/admin/", {"username": moderator.username, "password": PASSWORD})
    assert page.status_code == 200 and "This account is banned." in page.content.decode()
    assert "_auth_user_id" not in client.session
    assert client.get("/admin/").status_code == 302


def test_an_unbanned_moderator_signs_in(client, make_user, make_client):
    moderator, _ = make_moderator(make_user, make_client)
    page = client.post("/admin/login/?next=/admin/", {"username": moderator.username, "password": PASSWORD})
    assert page.status_code == 302 and page["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200


def test_a_ban_takes_the_admin_from_an_open_session_and_his_own_ban_stays(client, make_user, make_client):
    moderator, _ = make_moderator(make_user, make_client)
    client.force_login(moderator)
    assert client.get("/admin/accounts/sanction/").status_code == 200
    ban = _ban(moderator)
    for url in ("/admin/", "/admin/accounts/sanction/", f"/admin/accounts/sanction/{ban.pk}/change/"):
        refused = client.get(url)
        assert refused.status_code == 302 and refused["Location"].startswith("/admin/login/"), url
    refused = client.post(
        "/admin/accounts/sanction/",
        {"action": "revoke_sanctions", "_selected_action": [str(ban.pk)], "apply": "1", "reason": "mine"},
    )
    assert refused.status_code == 302 and refused["Location"].startswith("/admin/login/")
    ban.refresh_from_db()
    assert ban.revoked_at is None
    assert not ModerationAction.objects.filter(action="revoke").exists()


def test_nobody_revokes_a_sanction_on_himself_in_the_admin(client, make_user, make_client):
    moderator, _ = make_moderator(make_user, make_client)
    own = _ban(moderator, kind="queue_ban")  # a queue ban leaves him his staff power
    client.force_login(moderator)
    page = _revoke(client, [own.pk])
    assert page.status_code == 200
    assert "Nobody revokes a sanction on himself." in page.content.decode()
    own.refresh_from_db()
    assert own.revoked_at is None
    [refusal] = _refusals()
    assert (refusal.moderator, refusal.target_type, refusal.target_id) == (moderator, "sanction", own.pk)
    assert refusal.subject_user_id == moderator.pk and refusal.source == "admin"
    assert refusal.details["attempted"] == "revoke" and refusal.reason == "appeal"


def test_nobody_revokes_a_sanction_on_himself_through_the_api(make_user, make_client):
    moderator, api = make_moderator(make_user, make_client)
    own = _ban(moderator, kind="queue_ban")
    response = api.post(f"/api/v1/moderation/sanctions/{own.pk}/revoke", {"note": "mine"}, format="json")
    assert_error(response, 403, "permission_denied")
    own.refresh_from_db()
    assert own.revoked_at is None
    [refusal] = _refusals()
    assert refusal.source == "api" and refusal.details["attempted"] == "revoke"


def test_a_moderator_cannot_sanction_a_superuser_or_other_staff(client, make_user, make_client):
    moderator, _ = make_moderator(make_user, make_client)
    root = _superuser()
    colleague, _ = make_moderator(make_user, make_client)
    player, _ = make_user()
    client.force_login(moderator)
    page = _sanction(client, [root.pk, colleague.pk, player.pk])
    html = page.content.decode()
    assert page.status_code == 200
    assert "Only a superuser sanctions a superuser." in html and "Only a superuser sanctions staff." in html
    assert [s.user for s in Sanction.objects.all()] == [player]
    refusals = _refusals()
    assert {(r.subject_user_id, r.target_type, r.target_id) for r in refusals} == {
        (root.pk, "user", root.pk),
        (colleague.pk, "user", colleague.pk),
    }
    assert all(r.moderator == moderator and r.details["attempted"] == "sanction" for r in refusals)
    assert all(r.details["kind"] == "ban" and r.source == "admin" for r in refusals)


def test_a_moderator_cannot_ban_a_superuser_through_the_api(make_user, make_client):
    moderator, api = make_moderator(make_user, make_client)
    root = _superuser()
    response = api.post(
        "/api/v1/moderation/sanctions", {"user": root.pk, "kind": "ban", "reason": "coup"}, format="json"
    )
    assert_error(response, 403, "permission_denied")
    assert not Sanction.objects.exists()
    [refusal] = _refusals()
    assert refusal.subject_user_id == root.pk and refusal.source == "api" and refusal.reason == "coup"


def test_a_moderator_cannot_revoke_a_sanction_of_staff(client, make_user, make_client):
    moderator, _ = make_moderator(make_user, make_client)
    colleague, _ = make_moderator(make_user, make_client)
    sanction = _ban(colleague)
    client.force_login(moderator)
    page = _revoke(client, [sanction.pk])
    assert "Only a superuser sanctions staff." in page.content.decode()
    sanction.refresh_from_db()
    assert sanction.revoked_at is None and len(_refusals()) == 1


def test_a_superuser_sanctions_and_revokes_for_staff_and_superusers(client, make_user, make_client):
    root = _superuser()
    other_root = _superuser("root2")
    moderator, _ = make_moderator(make_user, make_client)
    client.force_login(root)
    page = _sanction(client, [moderator.pk, other_root.pk])
    assert "Sanction users: done for 2 of 2." in page.content.decode()
    assert {s.user for s in Sanction.objects.all()} == {moderator, other_root}
    _revoke(client, [s.pk for s in Sanction.objects.all()])
    assert not Sanction.objects.filter(revoked_at__isnull=True).exists()
    # ... but not himself.
    page = _sanction(client, [root.pk])
    assert "cannot sanction himself" in page.content.decode()
    assert not Sanction.objects.filter(user=root).exists()
    assert not _refusals(subject_user_id=moderator.pk)
