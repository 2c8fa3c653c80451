from django.urls import path

from accounts import apis, feed_apis

urlpatterns = [
    path("auth/register", apis.AuthRegisterApi.as_view(), name="auth-register"),
    path("auth/token", apis.AuthTokenApi.as_view(), name="auth-token"),
    path("auth/guest", apis.AuthGuestApi.as_view(), name="auth-guest"),
    path("auth/logout", apis.AuthLogoutApi.as_view(), name="auth-logout"),
    path("auth/logout-all", apis.AuthLogoutAllApi.as_view(), name="auth-logout-all"),
    path("me", apis.MeApi.as_view(), name="me"),
    path("me/restrictions", apis.MeRestrictionsApi.as_view(), name="me-restrictions"),
    path("me/events", feed_apis.me_events_view, name="me-events"),
    path("ratings/leaderboard", apis.RatingLeaderboardApi.as_view(), name="rating-leaderboard"),
    path("users/<int:user_id>/ratings", apis.UserRatingsApi.as_view(), name="user-ratings"),
]
