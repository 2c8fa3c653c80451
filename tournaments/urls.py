from django.urls import path

from infra.api import converters  # noqa: F401 - registers <id:...>
from tournaments import apis

urlpatterns = [
    path("tournaments", apis.TournamentCollectionApi.as_view(), name="tournaments"),
    path("tournaments/<id:tournament_id>", apis.TournamentDetailApi.as_view(), name="tournament-detail"),
    path("tournaments/<id:tournament_id>/join", apis.TournamentJoinApi.as_view(), name="tournament-join"),
    path("tournaments/<id:tournament_id>/leave", apis.TournamentLeaveApi.as_view(), name="tournament-leave"),
    path("tournaments/<id:tournament_id>/start", apis.TournamentStartApi.as_view(), name="tournament-start"),
    path(
        "tournaments/<id:tournament_id>/standings",
        apis.TournamentStandingsApi.as_view(),
        name="tournament-standings",
    ),
    path(
        "tournaments/<id:tournament_id>/rounds/<id:number>",
        apis.TournamentRoundApi.as_view(),
        name="tournament-round",
    ),
]
