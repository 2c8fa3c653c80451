from django.urls import path

from infra.api import converters  # noqa: F401 - registers <id:...> and <seat:...>
from matchmaking.moderation import apis

urlpatterns = [
    path("reports", apis.ReportCreateApi.as_view(), name="report-create"),
    path("moderation/reports", apis.ModerationReportListApi.as_view(), name="moderation-reports"),
    path(
        "moderation/reports/<id:report_id>/dismiss",
        apis.ModerationReportDismissApi.as_view(),
        name="moderation-report-dismiss",
    ),
    path("moderation/sanctions", apis.ModerationSanctionCreateApi.as_view(), name="moderation-sanctions"),
    path(
        "moderation/sanctions/<id:sanction_id>/revoke",
        apis.ModerationSanctionRevokeApi.as_view(),
        name="moderation-sanction-revoke",
    ),
    path(
        "moderation/games/<id:game_id>/abort",
        apis.ModerationGameAbortApi.as_view(),
        name="moderation-game-abort",
    ),
    path(
        "moderation/tables/<id:table_id>/seats/<seat:seat>/foul",
        apis.ModerationSeatFoulApi.as_view(),
        name="moderation-seat-foul",
    ),
    path(
        "moderation/tables/<id:table_id>/seats/<seat:seat>/collusion",
        apis.ModerationSeatCollusionApi.as_view(),
        name="moderation-seat-collusion",
    ),
    path("moderation/audit", apis.ModerationAuditApi.as_view(), name="moderation-audit"),
]
