from django.urls import path

from infra.api import converters  # noqa: F401 - registers <id:...> and <seat:...>
from matchmaking import apis, event_apis, invitation_apis, ticket_apis

urlpatterns = [
    path("tables", apis.TableCollectionApi.as_view(), name="table-create"),
    path("tables/<id:table_id>", apis.TableDetailApi.as_view(), name="table-detail"),
    path("tables/<id:table_id>/events", event_apis.TableEventsApi.as_view(), name="table-events"),
    path("tables/<id:table_id>/join", apis.TableJoinApi.as_view(), name="table-join"),
    path("tables/<id:table_id>/leave", apis.TableLeaveApi.as_view(), name="table-leave"),
    path("tables/<id:table_id>/invites", invitation_apis.TableInvitesApi.as_view(), name="table-invites"),
    path(
        "me/invitations/<id:invitation_id>/decline",
        invitation_apis.InvitationDeclineApi.as_view(),
        name="invitation-decline",
    ),
    path(
        "tables/<id:table_id>/seats/<seat:seat>/remove",
        apis.TableSeatRemoveApi.as_view(),
        name="table-seat-remove",
    ),
    path("users/<id:user_id>/history", apis.UserHistoryApi.as_view(), name="user-history"),
    path("matchmaking/tickets", ticket_apis.TicketCreateApi.as_view(), name="ticket-create"),
    path("matchmaking/tickets/<id:ticket_id>", ticket_apis.TicketDetailApi.as_view(), name="ticket-detail"),
    path("me/active", ticket_apis.MeActiveApi.as_view(), name="me-active"),
    path("matchmaking/stats", ticket_apis.MatchmakingStatsApi.as_view(), name="matchmaking-stats"),
]
