from django.apps import AppConfig


class WebConfig(AppConfig):
    """The browser client (docs/web-client.md): pages served here, everything else through /api/v1/."""

    name = "web"
    default_auto_field = "django.db.models.BigAutoField"
