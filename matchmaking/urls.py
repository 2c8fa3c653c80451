from django.urls import path

from matchmaking import apis

urlpatterns = [
    path("tables", apis.TableCreateApi.as_view(), name="table-create"),
    path("tables/<int:table_id>", apis.TableDetailApi.as_view(), name="table-detail"),
    path("tables/<int:table_id>/join", apis.TableJoinApi.as_view(), name="table-join"),
    path("tables/<int:table_id>/leave", apis.TableLeaveApi.as_view(), name="table-leave"),
]
