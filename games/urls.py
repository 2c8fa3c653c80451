from django.urls import path

from games import apis, history_apis

urlpatterns = [
    path("games/<int:game_id>", apis.GameDetailApi.as_view(), name="game-detail"),
    path("games/<int:game_id>/final", apis.GameFinalApi.as_view(), name="game-final"),
    path("games/<int:game_id>/actions", apis.GameActionApi.as_view(), name="game-actions"),
    path("games/<int:game_id>/trustee", apis.GameTrusteeApi.as_view(), name="game-trustee"),
    path("games/<int:game_id>/events", apis.GameEventsApi.as_view(), name="game-events"),
    path("users/<int:user_id>/games", history_apis.UserGamesApi.as_view(), name="user-games"),
]
