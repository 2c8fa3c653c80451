from django.apps import AppConfig


class PushConfig(AppConfig):
    """Devices, preferences, the inbox and push delivery (docs/notifications.md): an app of its own
    inside accounts, so that accounts' models and feed never import it (the feed hands new entries
    to its task by name)."""

    name = "accounts.push"
    label = "push"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "Push notifications"

    def ready(self) -> None:
        from accounts import account_hooks
        from accounts.push import services

        # What `GET me/export` holds of it (deletion erases through accounts/account_services.py).
        account_hooks.account_export_subscribe(services.account_push_export)
