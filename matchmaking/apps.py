from django.apps import AppConfig


class MatchmakingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "matchmaking"

    def ready(self) -> None:
        from auditlog.registry import auditlog

        from games import deal_end
        from matchmaking import services
        from matchmaking.models import Report, Seat

        # Matchmaking owns the deal-end → next-deal flow: games announces a finished deal, once.
        deal_end.deal_end_subscribe(services.table_deal_ended)
        # Model history of reports and seats (accounts/audit.py says why games are left out).
        auditlog.register(Report)
        auditlog.register(Seat)
