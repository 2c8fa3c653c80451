"""Each user's Unicode TR 39 skeleton (accounts/usernames.py `username_skeleton`), stored beside the
name and indexed, so that a new name is compared with every existing one in one indexed lookup.

Existing look-alikes keep their names: the rule applies when a name is chosen (docs/security.md).
"""

from django.db import migrations

import accounts.models
from accounts.usernames import username_skeleton


def forwards(apps, schema_editor):
    # The skeleton is ICU's (it follows ICU's data, not a copy frozen here): the same function as
    # every later save, so that the stored skeletons and new names' compare alike.
    User = apps.get_model("accounts", "User")
    batch = []
    for user in User.objects.only("pk", "username").iterator(chunk_size=2000):
        user.username_skeleton = username_skeleton(user.username)
        batch.append(user)
        if len(batch) == 2000:
            User.objects.bulk_update(batch, ["username_skeleton"])
            batch = []
    User.objects.bulk_update(batch, ["username_skeleton"])


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0013_moderationaction_refused"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="username_skeleton",
            field=accounts.models.UsernameSkeletonField(db_index=True, default="", editable=False),
        ),
        migrations.RunPython(forwards, migrations.RunPython.noop, elidable=False),
    ]
