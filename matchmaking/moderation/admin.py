"""The moderators' admin: the report queue, and the powers of the API as admin actions, each asking
for a reason on an intermediate page and writing the same audit entry as the API (source `admin`).

Sanctioning from the user list and aborting from the deal list act on games and tables, which
accounts and games must not import, so those two admin classes are extended here."""

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.admin import UserAdmin
from accounts.admin_forms import SOURCE, SanctionForm, confirm_with_reason
from accounts.models import User
from games.admin import GameAdmin, may_see_hidden
from games.models import Game, GameStatus
from games.replay import ACTION_TERMS, game_replay
from matchmaking.models import Report
from matchmaking.moderation import services, signs


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

    @admin.action(description=_("Sanction selected users…"), permissions=["sanction"])
    def sanction_users(self, request, queryset):
        return confirm_with_reason(
            self,
            request,
            queryset,
            title=_("Sanction users"),
            form_class=SanctionForm,
            apply=lambda user, data: _sanction(request, user_id=user.pk, data=data),
        )

    def has_sanction_permission(self, request) -> bool:
        return request.user.has_perm("accounts.add_sanction")

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        return fieldsets if obj is None else (*fieldsets, (_("Deals"), {"fields": ("deals_link",)}))

    def get_readonly_fields(self, request, obj=None):
        return (*super().get_readonly_fields(request, obj), "deals_link")

    @admin.display(description=_("deals played"))
    def deals_link(self, user: User) -> str:
        url = reverse("admin:games_game_changelist") + f"?seat_players__user__id__exact={user.pk}"
        text = gettext("His deals, newest first")
        return format_html('<a href="{}" id="user-deals-link">{}</a>', url, text)


# What each kind of sign means, in the replay's words (docs/moderation.md "Signs of 串牌").
SIGN_KINDS = {
    "let_stand": _("let an opponent's play stand, holding a play that beat it"),
    "fed": _("led what an opponent went out on, holding a lead none could go out on"),
    "overtook": _("took over a trick his partner would have won"),
}


class ModeratedGameAdmin(GameAdmin):
    actions = ("abort_games",)

    @admin.action(description=_("Abort selected deals (unscored, table closed)…"), permissions=["abort"])
    def abort_games(self, request, queryset):
        return confirm_with_reason(
            self,
            request,
            queryset,
            title=_("Abort deals"),
            apply=lambda game, data: _abort(request, game_id=game.pk, data=data),
        )

    def has_abort_permission(self, request) -> bool:
        return request.user.has_perm("matchmaking.abort_game")

    def get_fields(self, request, obj=None):
        return (*super().get_fields(request, obj), "replay_link")

    def get_readonly_fields(self, request, obj=None):
        return self.get_fields(request, obj)

    @admin.display(description=_("replay"))
    def replay_link(self, game: Game) -> str:
        url = reverse("admin:games_game_replay", args=[game.pk])
        return format_html(
            '<a href="{}" id="game-replay-link">{}</a>', url, gettext("The deal as cards, step by step")
        )

    def get_urls(self):
        replay = path(
            "<int:game_id>/replay/", self.admin_site.admin_view(self.replay_view), name="games_game_replay"
        )
        return [replay, *super().get_urls()]

    def replay_view(self, request, game_id: int):
        """Every hand from the deal, each action in order (games/replay.py), the report's seats
        highlighted (`?report=<id>`). A running deal's cards only to those who may see hidden cards,
        as the deal's own page."""
        game = get_object_or_404(Game, pk=game_id)
        if not self.has_view_permission(request, game):
            raise PermissionDenied
        if game.status == GameStatus.RUNNING and not may_see_hidden(request):
            raise PermissionDenied
        report_id = request.GET.get("report", "")
        report = Report.objects.filter(pk=report_id, game=game).first() if report_id.isdigit() else None
        seats = list(game.seat_user_ids)
        reported = seats.index(report.user_id) if report and report.user_id in seats else None
        reporter = seats.index(report.reporter_id) if report and report.reporter_id in seats else None
        replay = game_replay(game=game)
        found = {sign.step: sign for sign in signs.game_signs(game=game)}
        rows = [
            {
                "number": index + 1,
                "seat": step["seat"],
                "player": game.players[step["seat"]],
                "type": step["action"]["type"],
                "term": ACTION_TERMS.get(step["action"]["type"], ""),
                "cards": " ".join(
                    step["action"]["cards"] or ([step["action"]["card"]] if step["action"]["card"] else [])
                ),
                "sign": found.get(index + 1),
                "sign_text": SIGN_KINDS[found[index + 1].kind] if index + 1 in found else "",
                "marked": step["seat"] in (reported, reporter),
            }
            for index, step in enumerate(replay["steps"])
        ]
        summary = [
            {
                **entry,
                "player": game.players[entry["seat"]],
                "others": [
                    {"seat": seat, "player": game.players[seat], "count": count}
                    for seat, count in entry["others"]
                ],
            }
            for entry in signs.seat_summary(list(found.values()))
        ]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": gettext("Replay of deal %(id)s") % {"id": game.pk},
            "game": game,
            "report": report,
            "replay": replay,
            "rows": rows,
            "marks": {"reported": reported, "reporter": reporter},
            "summary": summary,
            # The true roles (the final view's, public once the deal ended): the sides the signs judge by.
            "teams": [
                {"seat": seat, "player": game.players[seat], "role": role}
                for seat, role in enumerate((game.final or {}).get("roles") or [])
                if role
            ],
            # The board's words (admin_replay.js draws it).
            "labels": {"table": gettext("on the table, played by"), "empty": gettext("nothing on the table")},
        }
        return TemplateResponse(request, "admin/games/game/replay.html", context)


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

    @admin.display(description=_("game"))
    def game_link(self, report: Report) -> str:
        if report.game_id is None:
            return "-"
        url = reverse("admin:games_game_change", args=[report.game_id])
        replay = reverse("admin:games_game_replay", args=[report.game_id]) + f"?report={report.pk}"
        return format_html(
            '<a href="{}" class="report-game-link">{}</a> · <a href="{}" class="report-replay-link">{}</a>',
            url,
            gettext("deal %(id)s and its events") % {"id": report.game_id},
            replay,
            gettext("replay"),
        )

    @admin.action(description=_("Sanction the reported players…"), permissions=["sanction"])
    def sanction_reported(self, request, queryset):
        return confirm_with_reason(
            self,
            request,
            queryset,
            title=_("Sanction reported players"),
            form_class=SanctionForm,
            apply=lambda report, data: _sanction(
                request, user_id=report.user_id, data=data, report_id=report.pk
            ),
        )

    @admin.action(description=_("Abort the reported deals…"), permissions=["abort"])
    def abort_reported(self, request, queryset):
        def apply(report, data):
            if report.game_id is None:
                from infra.api.errors import ApiError, ErrorCode

                raise ApiError(ErrorCode.INVALID_REQUEST, "This report names no deal.")
            return _abort(request, game_id=report.game_id, data=data, report_id=report.pk)

        return confirm_with_reason(self, request, queryset, title=_("Abort reported deals"), apply=apply)

    @admin.action(description=_("Dismiss selected reports…"), permissions=["dismiss"])
    def dismiss_reports(self, request, queryset):
        return confirm_with_reason(
            self,
            request,
            queryset,
            title=_("Dismiss reports"),
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
