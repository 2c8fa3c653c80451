from django.apps import AppConfig


class PushConfig(AppConfig):
    """Devices, preferences, the inbox and push delivery (docs/notifications.md): an app of its own
    inside accounts, so that accounts' models and feed never import it (the feed hands new entries
    to its task by name)."""

    name = "accounts.push"
    label = "push"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "Push notifications"
