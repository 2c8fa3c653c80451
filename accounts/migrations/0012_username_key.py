"""One form in which usernames are compared (accounts/usernames.py `username_key`), stored beside
the name and unique, in place of the database's locale-dependent lower(username).

Names that clashed under lower() already had a suffix (0006). Where two names are the same only in
the new form (full case folding: `straße` and `STRASSE`), the oldest account keeps its name and each
later one is renamed `<name>-<id>`, as 0006 did, so that every account and its history stay; the new
names are printed so moderators can tell the players.
"""

import unicodedata

from django.db import migrations

import accounts.models


def _key(name: str) -> str:
    # accounts.usernames.username_key as of this migration.
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def forwards(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    taken: set[str] = set()
    for user_id, username in User.objects.order_by("pk").values_list("pk", "username"):
        name = username
        if _key(name) in taken:
            suffix = f"-{user_id}"
            while _key(name) in taken:
                name = username[: 150 - len(suffix)] + suffix
                suffix += "x"
            print(f"\n  accounts: user {user_id} renamed to {name!r}", end="")
        taken.add(_key(name))
        User.objects.filter(pk=user_id).update(username=name, username_key=_key(name))


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0011_fields_read_with_orjson"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="user", name="user_username_ci"),
        migrations.AddField(
            model_name="user",
            name="username_key",
            field=accounts.models.UsernameKeyField(editable=False, null=True),
        ),
        migrations.RunPython(forwards, migrations.RunPython.noop, elidable=False),
        migrations.AlterField(
            model_name="user",
            name="username_key",
            field=accounts.models.UsernameKeyField(editable=False, unique=True),
        ),
    ]
