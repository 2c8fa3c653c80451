"""The `moderators` group, with exactly the rights moderators need (docs/moderation.md):
read users, deals, tables, seats, reports, sanctions, penalties and both audit logs; impose and
revoke sanctions; dismiss reports; abort deals; remove players. Not: editing users, deals or tables,
deleting anything, seeing hidden cards (games.view_hidden_cards). Its members also need `is_staff`
to sign in to the admin."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "moderators"
PERMISSIONS = [
    ("accounts", "view_user"),
    ("accounts", "view_sanction"),
    ("accounts", "add_sanction"),
    ("accounts", "revoke_sanction"),
    ("accounts", "view_moderationaction"),
    ("games", "view_game"),
    ("games", "view_event"),
    ("matchmaking", "view_table"),
    ("matchmaking", "view_seat"),
    ("matchmaking", "view_penalty"),
    ("matchmaking", "view_report"),
    ("matchmaking", "dismiss_report"),
    ("matchmaking", "abort_game"),
    ("matchmaking", "remove_player"),
    ("auditlog", "view_logentry"),
]


def forwards(apps, schema_editor):
    # Permissions are normally created after all migrations (post_migrate); make them now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=GROUP)
    wanted = []
    for app_label, codename in PERMISSIONS:
        wanted.append(Permission.objects.get(content_type__app_label=app_label, codename=codename))
    group.permissions.set(wanted)


def backwards(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("matchmaking", "0004_alter_penalty_options_report"),
        ("accounts", "0007_drop_banned_unique_usernames_append_only_audit"),
        ("games", "0003_game_bots_game_left_alter_game_status"),
        ("auditlog", "0017_add_actor_email"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
