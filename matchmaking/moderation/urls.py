from django.urls import path

from matchmaking.moderation import apis

urlpatterns = [
    path("reports", apis.ReportCreateApi.as_view(), name="report-create"),
    path("moderation/reports", apis.ModerationReportListApi.as_view(), name="moderation-reports"),
    path(
        "moderation/reports/<int:report_id>/dismiss",
        apis.ModerationReportDismissApi.as_view(),
        name="moderation-report-dismiss",
    ),
    path("moderation/sanctions", apis.ModerationSanctionCreateApi.as_view(), name="moderation-sanctions"),
    path(
        "moderation/sanctions/<int:sanction_id>/revoke",
        apis.ModerationSanctionRevokeApi.as_view(),
        name="moderation-sanction-revoke",
    ),
    path(
        "moderation/games/<int:game_id>/abort",
        apis.ModerationGameAbortApi.as_view(),
        name="moderation-game-abort",
    ),
    path(
        "moderation/tables/<int:table_id>/seats/<int:seat>/foul",
        apis.ModerationSeatFoulApi.as_view(),
        name="moderation-seat-foul",
    ),
    path(
        "moderation/tables/<int:table_id>/seats/<int:seat>/collusion",
        apis.ModerationSeatCollusionApi.as_view(),
        name="moderation-seat-collusion",
    ),
    path("moderation/audit", apis.ModerationAuditApi.as_view(), name="moderation-audit"),
]
