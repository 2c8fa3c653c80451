"""docs/moderation.md audit log: every staff action, filterable, and nobody can change or delete an entry."""

import pytest
from django.db import DatabaseError, transaction

from accounts.models import ModerationAction
from tests.conftest import assert_error
from tests.moderation.helpers import make_moderator

pytestmark = pytest.mark.django_db


def _ban(client, user_id):
    return client.post(
        "/api/v1/moderation/sanctions", {"user": user_id, "kind": "ban", "reason": "r"}, format="json"
    )


def test_audit_lists_entries_by_player_and_by_moderator(make_table, make_user, make_client):
    setup = make_table()
    first_user, first = make_moderator(make_user, make_client)
    second_user, second = make_moderator(make_user, make_client)
    _ban(first, setup["users"][0].pk)
    _ban(second, setup["users"][1].pk)
    second.post(f"/api/v1/tables/{setup['table']}/seats/2/remove", format="json")
    everything = first.get("/api/v1/moderation/audit").json()["results"]
    assert [e["action"] for e in everything] == ["remove_player", "sanction", "sanction"]
    assert set(everything[0]) == {
        "id",
        "moderator",
        "action",
        "target_type",
        "target_id",
        "user",
        "reason",
        "details",
        "source",
        "created_at",
    }
    by_player = first.get(f"/api/v1/moderation/audit?user={setup['users'][1].pk}").json()["results"]
    assert [(e["action"], e["moderator"]) for e in by_player] == [("sanction", second_user.pk)]
    by_moderator = first.get(f"/api/v1/moderation/audit?moderator={second_user.pk}").json()["results"]
    assert [e["action"] for e in by_moderator] == ["remove_player", "sanction"]
    assert by_moderator[0]["user"] == setup["users"][2].pk and by_moderator[0]["details"] == {"seat": 2}
    assert (
        first.get(f"/api/v1/moderation/audit?moderator={first_user.pk}&user={setup['users'][1].pk}").json()[
            "results"
        ]
        == []
    )


def test_players_cannot_read_the_audit_log(make_user, make_client):
    _, token = make_user()
    assert_error(make_client(token).get("/api/v1/moderation/audit"), 403, "permission_denied")


def test_entries_cannot_be_updated_or_deleted_even_by_sql(make_user, make_client):
    _, moderator = make_moderator(make_user, make_client)
    target, _ = make_user()
    _ban(moderator, target.pk)
    entry = ModerationAction.objects.get()
    with pytest.raises(DatabaseError), transaction.atomic():
        ModerationAction.objects.filter(pk=entry.pk).update(reason="nothing happened")
    with pytest.raises(DatabaseError), transaction.atomic():
        ModerationAction.objects.filter(pk=entry.pk).delete()
    entry.refresh_from_db()
    assert entry.reason == "r"
