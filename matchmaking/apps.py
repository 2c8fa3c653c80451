from django.apps import AppConfig
from django.db.models.signals import post_migrate


class MatchmakingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "matchmaking"

    def ready(self) -> None:
        from auditlog.registry import auditlog

        from accounts import account_hooks
        from matchmaking import account_data
        from matchmaking.models import Report, Seat
        from matchmaking.moderators import moderators_group_ensure

        # A deleted account leaves its tables and tickets; an export lists them (docs/client-guide.md).
        account_hooks.account_erase_subscribe(account_data.account_erase)
        account_hooks.account_export_subscribe(account_data.account_export)
        # Model history of reports and seats (accounts/audit.py says why games are left out).
        auditlog.register(Report)
        auditlog.register(Seat)
        # The moderators' group survives a flush, as Django's own permissions do (matchmaking/moderators.py).
        post_migrate.connect(moderators_group_ensure, sender=self, dispatch_uid="moderators_group_ensure")
