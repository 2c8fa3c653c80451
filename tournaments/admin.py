"""Tournaments in the admin (docs/tournaments.md "Admin"): list, start, cancel, and a round's boards.

Start and cancel go through the services, inside the admin request, so the model history
(accounts/audit.py) names the staff member who did it.
"""

from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from games import selectors as game_selectors
from games.admin import may_see_hidden
from infra.api.errors import ApiError
from tournaments import services
from tournaments.models import Entry, Round, RoundTable, Tournament


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    fields = ("user", "joined_at", "withdrawn_at", "sent_off", "rank", "matchpoints", "score")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class RoundInline(admin.TabularInline):
    model = Round
    extra = 0
    fields = ("number", "started_at", "finished_at", "boards")
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description=_("boards"))
    def boards(self, round: Round) -> str:
        url = reverse("admin:tournaments_round_change", args=[round.pk])
        return format_html('<a href="{}">{}</a>', url, _("tables and deals"))


def _apply(modeladmin, request, queryset, action, done: str) -> None:
    for tournament in queryset:
        try:
            action(tournament_id=tournament.pk)
        except ApiError as exc:
            modeladmin.message_user(request, f"{tournament}: {exc.message}", messages.WARNING)
        else:
            modeladmin.message_user(request, f"{tournament}: {done}")


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "name",
        "status",
        "format",
        "duplicate",
        "preset",
        "rounds",
        "current_round",
        "starts_at",
        "created_at",
    )
    list_filter = ("status", "format", "duplicate", "preset", "created_at")
    search_fields = ("=id", "name")
    list_per_page = 50
    inlines = [EntryInline, RoundInline]
    readonly_fields = (
        "status",
        "cancelled_reason",
        "current_round",
        "created_by",
        "started_at",
        "finished_at",
    )
    actions = ("start", "cancel")

    def save_model(self, request, obj, form, change) -> None:
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    @admin.action(description=_("Start the selected tournaments now"))
    def start(self, request, queryset):
        _apply(self, request, queryset, services.tournament_start, "started")

    @admin.action(description=_("Cancel the selected tournaments (no further round)"))
    def cancel(self, request, queryset):
        _apply(self, request, queryset, services.tournament_cancel, "cancelled")


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    """A round's tables and, per table, its deals: each links to the deal's page in the admin, which
    holds its event log (its replay) and, for staff allowed hidden cards, its hands."""

    list_display = ("id", "tournament", "number", "started_at", "finished_at")
    list_select_related = ("tournament",)
    list_per_page = 50
    fields = ("tournament", "number", "started_at", "finished_at", "tables")

    def get_fields(self, request, obj=None):
        # The seeds are a round's hands: shown once it is over, or to those who may see hidden cards.
        if obj is not None and (obj.finished_at is not None or may_see_hidden(request)):
            return (*self.fields, "seeds")
        return self.fields

    # Rounds are made by the step alone, and a view-only admin page shows every field read-only.
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description=_("tables"))
    def tables(self, round: Round) -> str:
        rows = []
        for row in RoundTable.objects.filter(round=round).order_by("number"):
            deals = format_html_join(
                " ",
                '<a href="{}">{} {}</a>',
                (
                    (reverse("admin:games_game_change", args=[game.pk]), _("deal"), game.number)
                    for game in game_selectors.games_of_table(table_id=row.table_id)
                ),
            )
            table_url = reverse("admin:matchmaking_table_change", args=[row.table_id])
            rows.append((row.number, table_url, row.table_id, deals))
        return format_html(
            "<table>{}</table>",
            format_html_join("", '<tr><td>{}</td><td><a href="{}">table {}</a></td><td>{}</td></tr>', rows),
        )
