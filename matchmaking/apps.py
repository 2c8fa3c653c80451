from django.apps import AppConfig


class MatchmakingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "matchmaking"

    def ready(self) -> None:
        # Matchmaking owns the deal-end → next-deal flow: games announces a finished deal, once.
        from games import actions
        from matchmaking import services

        actions.deal_end_subscribe(services.table_deal_ended)
