"""Issue 39 item 2's `invited`: a private table's creator invites a player; his feed, phone and inbox
learn of it once; he may decline (docs/notifications.md "Invitations")."""

import pytest

from accounts.models import FeedEvent
from tests.conftest import assert_error
from tests.push.helpers import run_queued_tasks

pytestmark = pytest.mark.django_db


def _table(client, private=True) -> int:
    response = client.post("/api/v1/tables", {"preset": "weihai", "private": private}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def _invite(client, table_id, user_id):
    return client.post(f"/api/v1/tables/{table_id}/invites", {"user": user_id}, format="json")


def test_an_invitation_reaches_the_invitees_phone_and_inbox_once(
    webpush_service, make_user, make_client, django_capture_on_commit_callbacks
):
    host, host_token = make_user()
    guest, guest_token = make_user()
    browser = webpush_service.browser()
    make_client(guest_token).post(
        "/api/v1/me/devices", {"platform": "webpush", "subscription": browser.subscription()}, format="json"
    )
    table_id = _table(make_client(host_token))
    code = make_client(host_token).get(f"/api/v1/tables/{table_id}").json()["code"]

    with django_capture_on_commit_callbacks(execute=True):
        first = _invite(make_client(host_token), table_id, guest.pk)
    with django_capture_on_commit_callbacks(execute=True):
        again = _invite(make_client(host_token), table_id, guest.pk)
    assert first.status_code == 201 and again.status_code == 200
    assert again.json() == first.json()
    assert first.json()["user"] == guest.pk and first.json()["declined"] is False
    run_queued_tasks()

    [entry] = FeedEvent.objects.filter(user=guest, type="invited")
    assert entry.data == {
        "type": "invited",
        "invitation": first.json()["id"],
        "table": table_id,
        "code": code,
        "by": host.username,
    }
    [message] = webpush_service.delivered(browser)
    assert message["data"] == {  # not the code: it opens the table, and pushes cross other servers
        "type": "invited",
        "seq": entry.seq,
        "table": table_id,
        "invitation": first.json()["id"],
    }
    assert code not in repr(message) and code not in repr(webpush_service.received[0].headers)
    [item] = make_client(guest_token).get("/api/v1/me/inbox").json()["items"]
    assert item["type"] == "invited" and item["data"]["code"] == code


def test_invitations_are_refused_where_they_make_no_sense(make_user, make_client):
    host, host_token = make_user()
    other, other_token = make_user()
    private = _table(make_client(host_token))
    public = _table(make_client(host_token), private=False)
    assert_error(_invite(make_client(other_token), private, host.pk), 403, "permission_denied")
    assert_error(_invite(make_client(host_token), public, other.pk), 400, "invalid_request")
    assert_error(_invite(make_client(host_token), private, 10**12), 404, "not_found")
    assert_error(_invite(make_client(host_token), private, host.pk), 400, "invalid_request")
    assert_error(_invite(make_client(host_token), 10**12, other.pk), 404, "not_found")
    assert_error(
        make_client(host_token).post(f"/api/v1/tables/{private}/invites", {"user": "x"}, format="json"),
        400,
        "invalid_request",
    )
    assert not FeedEvent.objects.filter(type="invited").exists()


def test_a_declined_invitation_is_not_sent_again(make_user, make_client):
    _, host_token = make_user()
    guest, guest_token = make_user()
    table_id = _table(make_client(host_token))
    invitation = _invite(make_client(host_token), table_id, guest.pk).json()
    assert_error(
        make_client(host_token).post(f"/api/v1/me/invitations/{invitation['id']}/decline"), 404, "not_found"
    )
    assert (
        make_client(guest_token).post(f"/api/v1/me/invitations/{invitation['id']}/decline").status_code == 204
    )
    assert_error(_invite(make_client(host_token), table_id, guest.pk), 403, "permission_denied")
    assert FeedEvent.objects.filter(user=guest, type="invited").count() == 1
