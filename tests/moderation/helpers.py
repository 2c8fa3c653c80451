"""Shared by the moderation tests: a moderator (staff in the `moderators` group) and a movable clock."""

from datetime import datetime

from django.contrib.auth.models import Group


def make_moderator(make_user, make_client):
    """A staff user in the `moderators` group (migration matchmaking 0004): (user, API client)."""
    user, token = make_user(staff=True)
    user.groups.add(Group.objects.get(name="moderators"))
    return user, make_client(token)


class Clock:
    """Replaces django.utils.timezone.now, which every service, selector and auto_now field reads."""

    def __init__(self, monkeypatch, start: datetime):
        self.now = start
        monkeypatch.setattr("django.utils.timezone.now", lambda: self.now)

    def set(self, moment: datetime) -> None:
        self.now = moment
