"""Shared by the moderation tests: a moderator (staff in the `moderators` group) and a movable clock."""

import importlib
from datetime import datetime

from django.contrib.auth.models import Group, Permission

_GROUP_MIGRATION = importlib.import_module("matchmaking.migrations.0005_moderators_group")


def moderators_group() -> Group:
    """The group made by migration matchmaking 0004. Transactional tests (live_server) flush the
    database after they run, migration data included, so it is made again here when missing."""
    group, created = Group.objects.get_or_create(name=_GROUP_MIGRATION.GROUP)
    if created:
        group.permissions.set(
            [
                Permission.objects.get(content_type__app_label=app_label, codename=codename)
                for app_label, codename in _GROUP_MIGRATION.PERMISSIONS
            ]
        )
    return group


def make_moderator(make_user, make_client):
    """A staff user in the `moderators` group: (user, API client)."""
    user, token = make_user(staff=True)
    user.groups.add(moderators_group())
    return user, make_client(token)


class Clock:
    """Replaces django.utils.timezone.now, which every service, selector and auto_now field reads."""

    def __init__(self, monkeypatch, start: datetime):
        self.now = start
        monkeypatch.setattr("django.utils.timezone.now", lambda: self.now)

    def set(self, moment: datetime) -> None:
        self.now = moment
