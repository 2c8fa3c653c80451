from django.apps import AppConfig


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"

    def ready(self) -> None:
        # Registers the OpenAPI description of the bearer scheme.
        from accounts import schema  # noqa: F401
        from accounts.audit import audit_register

        audit_register()
        from accounts.token_cache import connect_signals

        connect_signals()
