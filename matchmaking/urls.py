from django.urls import path

from matchmaking import apis, event_apis

urlpatterns = [
    path("tables", apis.TableCreateApi.as_view(), name="table-create"),
    path("tables/<int:table_id>", apis.TableDetailApi.as_view(), name="table-detail"),
    path("tables/<int:table_id>/events", event_apis.table_events_view, name="table-events"),
    path("tables/<int:table_id>/join", apis.TableJoinApi.as_view(), name="table-join"),
    path("tables/<int:table_id>/leave", apis.TableLeaveApi.as_view(), name="table-leave"),
    path(
        "tables/<int:table_id>/seats/<int:seat>/remove",
        apis.TableSeatRemoveApi.as_view(),
        name="table-seat-remove",
    ),
    path("users/<int:user_id>/history", apis.UserHistoryApi.as_view(), name="user-history"),
]
