from django.apps import AppConfig


class MatchmakingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "matchmaking"

    def ready(self) -> None:
        from auditlog.registry import auditlog

        from accounts import account_hooks
        from matchmaking import account_data
        from matchmaking.models import Report, Seat

        # A deleted account leaves its tables and tickets; an export lists them (docs/client-guide.md).
        account_hooks.account_erase_subscribe(account_data.account_erase)
        account_hooks.account_export_subscribe(account_data.account_export)
        # Model history of reports and seats (accounts/audit.py says why games are left out).
        auditlog.register(Report)
        auditlog.register(Seat)
