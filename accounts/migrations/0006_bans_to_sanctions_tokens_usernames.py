"""Data for the moderation release, before the old `banned` column goes and the unique-username
constraint comes (0005):

* every `banned` user gets a permanent `ban` sanction (no moderator on record);
* existing tokens expire TOKEN_TTL_DAYS from now (sliding from their next use);
* usernames are NFKC-normalised; where two of them then differ only in case, the oldest account
  keeps its name and each later one is renamed `<name>-<id>`, so every account and its history stay
  and the unique constraint can be created; a permanent account named like a guest (`guest-...`) is
  renamed `player-...` the same way. The new names are printed so moderators can tell the players.
"""

import unicodedata
from datetime import timedelta

from django.conf import settings
from django.db import migrations
from django.utils import timezone

MIGRATED_BAN_REASON = "Banned before sanctions existed (migrated from the banned flag)."


def _bans_to_sanctions(User, Sanction):
    for user_id in User.objects.filter(banned=True).values_list("pk", flat=True):
        Sanction.objects.create(user_id=user_id, kind="ban", reason=MIGRATED_BAN_REASON)


def _free_name(base: str, user_id: int, taken: set[str]) -> str:
    suffix = f"-{user_id}"
    name = base[: 150 - len(suffix)] + suffix
    while name.lower() in taken:
        suffix += "x"
        name = base[: 150 - len(suffix)] + suffix
    return name


def _usernames_fix(User):
    rows = list(User.objects.order_by("pk").values_list("pk", "username", "is_guest"))
    taken: set[str] = set()
    renames: dict[int, str] = {}
    for user_id, username, is_guest in rows:
        name = unicodedata.normalize("NFKC", username)
        if not is_guest and name.casefold().startswith("guest-"):
            name = "player-" + name[len("guest-"):]
        if name.lower() in taken:
            name = _free_name(name, user_id, taken)
        taken.add(name.lower())
        if name != username:
            renames[user_id] = name
    for user_id, name in renames.items():
        User.objects.filter(pk=user_id).update(username=name)
        print(f"\n  accounts: user {user_id} renamed to {name!r}", end="")


def forwards(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    _bans_to_sanctions(User, apps.get_model("accounts", "Sanction"))
    ttl = timedelta(days=float(getattr(settings, "TOKEN_TTL_DAYS", 30)))
    apps.get_model("accounts", "AuthToken").objects.update(expires_at=timezone.now() + ttl)
    _usernames_fix(User)


def backwards(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    Sanction = apps.get_model("accounts", "Sanction")
    now = timezone.now()
    active = Sanction.objects.filter(kind="ban", revoked_at__isnull=True).exclude(expires_at__lte=now)
    User.objects.filter(pk__in=active.values("user_id")).update(banned=True)


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0005_sanctions_audit_token_expiry'),
    ]

    operations = [
        migrations.RunPython(forwards, backwards),
    ]
