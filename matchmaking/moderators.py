"""The `moderators` group, with exactly the rights moderators need (docs/moderation.md): read users,
deals, tables, seats, reports, sanctions, penalties and both audit logs; impose and revoke sanctions;
dismiss reports; abort deals; remove players. Not: editing users, deals or tables, deleting anything,
seeing hidden cards (games.view_hidden_cards). Its members also need `is_staff` to sign in to the admin.

Migration matchmaking 0005 made it once; `moderators_group_ensure` makes it again after every
`migrate` and every `flush` (post_migrate, the signal Django's own permissions are made on), so a
database emptied by `flush` (a transactional test's teardown, an operator's reset) still has it.
An existing group is left as the operator keeps it."""

from django.apps import apps as global_apps
from django.contrib.auth.management import create_permissions
from django.db import DEFAULT_DB_ALIAS

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


def moderators_group_ensure(sender, using=DEFAULT_DB_ALIAS, apps=global_apps, **kwargs) -> None:
    """post_migrate receiver (sent once per app; connected for matchmaking's). `migrate` sends the
    migrated state as `apps`; `flush` sends none, and the installed models are meant, as in Django's
    `create_permissions`. The permissions of apps signalled later (games) may not exist yet, so they
    are made here first, by that same function: it is idempotent, and the later signal finds them."""
    Group = apps.get_model("auth", "Group")
    if Group.objects.using(using).filter(name=GROUP).exists():
        return
    for label in sorted({label for label, _ in PERMISSIONS}):
        create_permissions(global_apps.get_app_config(label), verbosity=0, using=using, apps=apps)
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.using(using).create(name=GROUP)
    group.permissions.set(
        [
            Permission.objects.using(using).get(content_type__app_label=label, codename=codename)
            for label, codename in PERMISSIONS
        ]
    )
