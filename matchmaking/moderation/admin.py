"""The moderators' admin: the report queue, and the powers of the API as admin actions, each asking
for a reason on an intermediate page and writing the same audit entry as the API (source `admin`).

Sanctioning from the user list and aborting from the deal list act on games and tables, which
accounts and games must not import, so those two admin classes are extended here."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from accounts.admin import UserAdmin
from accounts.admin_forms import SOURCE, SanctionForm, confirm_with_reason
from accounts.models import User
from games.admin import GameAdmin
from games.models import Game
from matchmaking.models import Report
from matchmaking.moderation import services


def _sanction(request, *, user_id: int, data: dict, report_id: int | None = None):
    return services.sanction_impose(
        user_id=user_id,
        kind=data["kind"],
        reason=data["reason"],
        expires_at=data.get("expires_at"),
        moderator=request.user,
        source=SOURCE,
        report_id=report_id,
    )


def _abort(request, *, game_id: int, data: dict, report_id: int | None = None):
    return services.game_abort(
        game_id=game_id, reason=data["reason"], moderator=request.user, source=SOURCE, report_id=report_id
    )


class ModeratedUserAdmin(UserAdmin):
    actions = ("sanction_users",)

    @admin.action(description="Sanction selected users…", permissions=["sanction"])
    def sanction_users(self, request, queryset):
        return confirm_with_reason(
            self,
            request,
            queryset,
            title="Sanction users",
            form_class=SanctionForm,
            apply=lambda user, data: _sanction(request, user_id=user.pk, data=data),
        )

    def has_sanction_permission(self, request) -> bool:
        return request.user.has_perm("accounts.add_sanction")


class ModeratedGameAdmin(GameAdmin):
    actions = ("abort_games",)

    @admin.action(description="Abort selected deals (unscored, table closed)…", permissions=["abort"])
    def abort_games(self, request, queryset):
        return confirm_with_reason(
            self,
            request,
            queryset,
            title="Abort deals",
            apply=lambda game, data: _abort(request, game_id=game.pk, data=data),
        )

    def has_abort_permission(self, request) -> bool:
        return request.user.has_perm("matchmaking.abort_game")


admin.site.unregister(User)
admin.site.register(User, ModeratedUserAdmin)
admin.site.unregister(Game)
admin.site.register(Game, ModeratedGameAdmin)


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = ("id", "status", "reason", "user", "reporter", "game_link", "created_at", "handled_by")
    list_filter = ("status", "reason", "created_at")
    search_fields = ("user__username", "reporter__username", "text", "=game__id")
    list_select_related = ("user", "reporter", "handled_by")
    list_per_page = 50
    fields = (
        "status",
        "reason",
        "user",
        "reporter",
        "game_link",
        "text",
        "created_at",
        "handled_by",
        "handled_at",
        "note",
    )
    readonly_fields = fields
    actions = ("sanction_reported", "abort_reported", "dismiss_reports")

    @admin.display(description="game")
    def game_link(self, report: Report) -> str:
        if report.game_id is None:
            return "-"
        url = reverse("admin:games_game_change", args=[report.game_id])
        return format_html(
            '<a href="{}" class="report-game-link">deal {} and its events</a>', url, report.game_id
        )

    @admin.action(description="Sanction the reported players…", permissions=["sanction"])
    def sanction_reported(self, request, queryset):
        return confirm_with_reason(
            self,
            request,
            queryset,
            title="Sanction reported players",
            form_class=SanctionForm,
            apply=lambda report, data: _sanction(
                request, user_id=report.user_id, data=data, report_id=report.pk
            ),
        )

    @admin.action(description="Abort the reported deals…", permissions=["abort"])
    def abort_reported(self, request, queryset):
        def apply(report, data):
            if report.game_id is None:
                from infra.api.errors import ApiError, ErrorCode

                raise ApiError(ErrorCode.INVALID_REQUEST, "This report names no deal.")
            return _abort(request, game_id=report.game_id, data=data, report_id=report.pk)

        return confirm_with_reason(self, request, queryset, title="Abort reported deals", apply=apply)

    @admin.action(description="Dismiss selected reports…", permissions=["dismiss"])
    def dismiss_reports(self, request, queryset):
        return confirm_with_reason(
            self,
            request,
            queryset,
            title="Dismiss reports",
            apply=lambda report, data: services.report_dismiss(
                report_id=report.pk, moderator=request.user, note=data["reason"], source=SOURCE
            ),
        )

    def has_sanction_permission(self, request) -> bool:
        return request.user.has_perm("accounts.add_sanction")

    def has_abort_permission(self, request) -> bool:
        return request.user.has_perm("matchmaking.abort_game")

    def has_dismiss_permission(self, request) -> bool:
        return request.user.has_perm("matchmaking.dismiss_report")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
