from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from accounts.admin_forms import SOURCE, confirm_with_reason
from matchmaking import selectors
from matchmaking.models import Penalty, Seat, Table, Ticket
from matchmaking.moderation import admin as moderation_admin  # noqa: F401 (registers its admin)
from matchmaking.moderation import services as moderation_services


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("seat", "user", "joined_at")
    readonly_fields = ("joined_at",)
    raw_id_fields = ("user",)


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "preset", "status", "private", "deals", "deals_done", "creator", "created_at")
    list_filter = ("status", "preset", "private", "matched", "rated", "created_at")
    search_fields = ("=id", "creator__username", "seats__user__username")
    list_select_related = ("creator",)
    list_per_page = 50
    inlines = [SeatInline]
    readonly_fields = ("scores", "deals_done", "created_at")
    raw_id_fields = ("creator",)

    def get_exclude(self, request, obj=None):
        # Fixed deals hold hands: only those who may see hidden cards see them.
        if request.user.is_superuser or request.user.has_perm("games.view_hidden_cards"):
            return ()
        return ("setups",)


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    """Moderators remove players here: during a running deal the player loses 40 points (docs/rules.md §5)."""

    list_display = ("id", "table", "seat", "user", "joined_at")
    list_filter = ("table__status",)
    search_fields = ("user__username", "=table__id")
    list_select_related = ("table", "user")
    list_per_page = 50
    raw_id_fields = ("table", "user")
    actions = ("remove_players", "record_fouls", "record_collusion")

    @admin.action(
        description=_("Remove selected players (40-point penalty during a running deal)…"),
        permissions=["remove_player"],
    )
    def remove_players(self, request, queryset):
        return confirm_with_reason(
            self,
            request,
            queryset.order_by("table_id", "seat"),
            title=_("Remove players"),
            apply=lambda row, data: moderation_services.player_remove(
                table_id=row.table_id,
                seat=row.seat,
                moderator=request.user,
                reason=data["reason"],
                source=SOURCE,
            ),
        )

    @admin.action(
        description=_("Record a foul (campus; the second removes the player)…"), permissions=["remove_player"]
    )
    def record_fouls(self, request, queryset):
        return confirm_with_reason(
            self,
            request,
            queryset.order_by("table_id", "seat"),
            title=_("Record fouls"),
            apply=lambda row, data: moderation_services.seat_foul(
                table_id=row.table_id,
                seat=row.seat,
                moderator=request.user,
                reason=data["reason"],
                source=SOURCE,
            ),
        )

    @admin.action(
        description=_("Record 串牌 (laowang; a card discarded before the next deal)…"),
        permissions=["remove_player"],
    )
    def record_collusion(self, request, queryset):
        return confirm_with_reason(
            self,
            request,
            queryset.order_by("table_id", "seat"),
            title=_("Record 串牌"),
            apply=lambda row, data: moderation_services.seat_collusion(
                table_id=row.table_id,
                seat=row.seat,
                moderator=request.user,
                reason=data["reason"],
                source=SOURCE,
            ),
        )

    def has_remove_player_permission(self, request) -> bool:
        return request.user.has_perm("matchmaking.remove_player")


@admin.register(Penalty)
class PenaltyAdmin(admin.ModelAdmin):
    list_display = (
        "id", "user", "table", "game", "seat", "points", "reason", "served_in", "moderator", "created_at"
    )
    list_filter = ("reason", "created_at")
    list_select_related = ("user", "table", "moderator")
    list_per_page = 50
    search_fields = ("user__username",)
    fields = list_display
    readonly_fields = list_display

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Ticket)
class TicketAdmin(admin.ModelAdmin):
    """Quick-match tickets; read-only: the ticket services and the matcher own every change."""

    list_display = ("id", "user", "status", "preset", "rated", "bots", "party", "created_at", "table")
    list_filter = ("status", "preset", "rated", "bots")
    search_fields = ("user__username", "party")
    date_hierarchy = "created_at"
    raw_id_fields = ("user", "table", "game")
    readonly_fields = (
        "user",
        "status",
        "preset",
        "options",
        "rated",
        "bots",
        "party",
        "rating",
        "created_at",
        "last_polled_at",
        "matched_at",
        "table",
        "game",
        "seat",
    )

    def has_add_permission(self, request) -> bool:
        return False

    def changelist_view(self, request, extra_context=None):
        # Queue size and median wait per preset, as GET matchmaking/stats gives them.
        extra_context = {**(extra_context or {}), "queue_stats": selectors.tickets_stats()}
        return super().changelist_view(request, extra_context=extra_context)
