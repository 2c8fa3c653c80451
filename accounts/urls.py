from django.urls import path

from accounts import account_apis, apis, bot_apis, feed_apis, token_apis
from accounts.push import apis as push_apis
from accounts.webhooks import apis as webhook_apis
from infra.api import converters  # noqa: F401 - registers <id:...> and <seat:...>

urlpatterns = [
    path("auth/register", apis.AuthRegisterApi.as_view(), name="auth-register"),
    path("auth/token", apis.AuthTokenApi.as_view(), name="auth-token"),
    path("auth/guest", apis.AuthGuestApi.as_view(), name="auth-guest"),
    path("auth/upgrade", account_apis.AuthUpgradeApi.as_view(), name="auth-upgrade"),
    path("auth/logout", apis.AuthLogoutApi.as_view(), name="auth-logout"),
    path("auth/logout-all", apis.AuthLogoutAllApi.as_view(), name="auth-logout-all"),
    path("auth/tokens", token_apis.AuthTokensApi.as_view(), name="auth-tokens"),
    path("auth/tokens/<id:token_id>", token_apis.AuthTokenDetailApi.as_view(), name="auth-token-detail"),
    path("webhooks", webhook_apis.WebhooksApi.as_view(), name="webhooks"),
    path("webhooks/<id:webhook_id>", webhook_apis.WebhookDetailApi.as_view(), name="webhook-detail"),
    path(
        "webhooks/<id:webhook_id>/deliveries",
        webhook_apis.WebhookDeliveriesApi.as_view(),
        name="webhook-deliveries",
    ),
    path(
        "webhooks/<id:webhook_id>/deliveries/<id:delivery_id>/redeliver",
        webhook_apis.WebhookRedeliverApi.as_view(),
        name="webhook-redeliver",
    ),
    path("bots", bot_apis.BotCreateApi.as_view(), name="bots"),
    path("me", apis.MeApi.as_view(), name="me"),
    path("me/password", account_apis.MePasswordApi.as_view(), name="me-password"),
    path("me/export", account_apis.MeExportApi.as_view(), name="me-export"),
    path("me/restrictions", apis.MeRestrictionsApi.as_view(), name="me-restrictions"),
    path("me/events", feed_apis.MeEventsApi.as_view(), name="me-events"),
    path("me/devices", push_apis.MeDevicesApi.as_view(), name="me-devices"),
    path("me/devices/<id:device_id>", push_apis.MeDeviceDetailApi.as_view(), name="me-device-detail"),
    path("me/notifications", push_apis.MeNotificationsApi.as_view(), name="me-notifications"),
    path("me/inbox", push_apis.MeInboxApi.as_view(), name="me-inbox"),
    path("me/inbox/read", push_apis.MeInboxReadApi.as_view(), name="me-inbox-read"),
    path("push/vapid-key", push_apis.PushVapidKeyApi.as_view(), name="push-vapid-key"),
    path("ratings/leaderboard", apis.RatingLeaderboardApi.as_view(), name="rating-leaderboard"),
    path("users/<id:user_id>/ratings", apis.UserRatingsApi.as_view(), name="user-ratings"),
]
