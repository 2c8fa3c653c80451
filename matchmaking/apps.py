from django.apps import AppConfig


class MatchmakingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "matchmaking"

    def ready(self) -> None:
        # Model history of reports and seats (accounts/audit.py says why games are left out).
        from auditlog.registry import auditlog

        from matchmaking.models import Report, Seat

        auditlog.register(Report)
        auditlog.register(Seat)
