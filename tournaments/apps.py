from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"

    def ready(self) -> None:
        from auditlog.registry import auditlog
        from django.db.models.signals import post_save

        from accounts import account_hooks
        from matchmaking.models import Table
        from tournaments import account_data, tasks
        from tournaments.models import Entry, Tournament

        # A tournament table that closes sends the tournament's step at once (the beat sweep would
        # take it up anyway): matchmaking's deal loop is not touched (docs/tournaments.md "Steps").
        post_save.connect(tasks.table_saved, sender=Table, dispatch_uid="tournaments.table_saved")
        # A deleted account leaves the tournaments he entered (after matchmaking's hook: his seats);
        # an export lists his entries.
        account_hooks.account_erase_subscribe(account_data.account_erase)
        account_hooks.account_export_subscribe(account_data.account_export)
        # Start and cancel by staff, joins and withdrawals are model history (accounts/audit.py).
        auditlog.register(Tournament)
        auditlog.register(Entry)
