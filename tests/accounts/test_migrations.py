"""The moderation release's data migration (accounts 0006) on rows made before it: banned users get
a permanent ban, clashing and guest-like usernames are renamed without losing any account."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("accounts", "0004_feed")]
AFTER = [("accounts", "0007_drop_banned_unique_usernames_append_only_audit")]


@pytest.mark.django_db(transaction=True)
def test_old_rows_come_through_the_migration_safely():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    OldUser = old.get_model("accounts", "User")
    OldToken = old.get_model("accounts", "AuthToken")
    alice = OldUser.objects.create(username="alice", password="x")
    alice_upper = OldUser.objects.create(username="Alice", password="x", banned=True)
    alice_wide = OldUser.objects.create(username="ａｌｉｃｅ", password="x")
    fake_guest = OldUser.objects.create(username="guest-000000000001", password="x")
    real_guest = OldUser.objects.create(username="guest-abcdef123456", password="!", is_guest=True)
    OldToken.objects.create(user=alice, key_hash="a" * 64)

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps
    User = new.get_model("accounts", "User")
    names = dict(User.objects.values_list("pk", "username"))
    assert names == {
        alice.pk: "alice",
        alice_upper.pk: f"Alice-{alice_upper.pk}",
        alice_wide.pk: f"alice-{alice_wide.pk}",
        fake_guest.pk: "player-000000000001",
        real_guest.pk: "guest-abcdef123456",
    }
    Sanction = new.get_model("accounts", "Sanction")
    assert list(Sanction.objects.values_list("user_id", "kind", "expires_at", "revoked_at")) == [
        (alice_upper.pk, "ban", None, None)
    ]
    assert new.get_model("accounts", "AuthToken").objects.get().expires_at is not None
    # Leave the database fully migrated for the tests that follow.
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
