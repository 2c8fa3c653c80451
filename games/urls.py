from django.urls import path

from games import apis, history_apis, replay_apis
from infra.api import converters  # noqa: F401 - registers <id:...> and <seat:...>

urlpatterns = [
    path("games/<id:game_id>", apis.GameDetailApi.as_view(), name="game-detail"),
    path("games/<id:game_id>/final", apis.GameFinalApi.as_view(), name="game-final"),
    path("games/<id:game_id>/replay", replay_apis.GameReplayApi.as_view(), name="game-replay"),
    path("games/<id:game_id>/actions", apis.GameActionApi.as_view(), name="game-actions"),
    path("games/<id:game_id>/hint", apis.GameHintApi.as_view(), name="game-hint"),
    path("games/<id:game_id>/trustee", apis.GameTrusteeApi.as_view(), name="game-trustee"),
    path("games/<id:game_id>/events", apis.GameEventsApi.as_view(), name="game-events"),
    path("users/<id:user_id>/games", history_apis.UserGamesApi.as_view(), name="user-games"),
]
