from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"

    def ready(self) -> None:
        from auditlog.registry import auditlog
        from django.db.models.signals import post_save

        from matchmaking.models import Table
        from tournaments import tasks
        from tournaments.models import Entry, Tournament

        # A tournament table that closes sends the tournament's step at once (the beat sweep would
        # take it up anyway): matchmaking's deal loop is not touched (docs/tournaments.md "Steps").
        post_save.connect(tasks.table_saved, sender=Table, dispatch_uid="tournaments.table_saved")
        # Start and cancel by staff, joins and withdrawals are model history (accounts/audit.py).
        auditlog.register(Tournament)
        auditlog.register(Entry)
