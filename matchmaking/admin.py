from django.contrib import admin, messages

from config.api.errors import ApiError
from matchmaking import services
from matchmaking.models import Penalty, Seat, Table, Ticket


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("seat", "user", "joined_at")
    readonly_fields = ("joined_at",)
    raw_id_fields = ("user",)


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "preset", "status", "private", "deals", "deals_done", "creator", "created_at")
    list_filter = ("status", "preset", "private", "matched", "rated")
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
    """Moderators remove players here: during a running deal the player loses 40 points (RULES §5)."""

    list_display = ("id", "table", "seat", "user", "joined_at")
    list_filter = ("table__status",)
    search_fields = ("user__username",)
    raw_id_fields = ("table", "user")
    actions = ("remove_players",)

    @admin.action(
        description="Remove selected players (40-point penalty during a running deal)", permissions=["delete"]
    )
    def remove_players(self, request, queryset):
        removed = 0
        for row in queryset.order_by("table_id", "seat"):
            try:
                services.table_seat_remove(table_id=row.table_id, seat=row.seat, moderator=request.user)
            except ApiError as exc:
                self.message_user(request, f"{row}: {exc.message}", messages.WARNING)
            else:
                removed += 1
        self.message_user(request, f"Removed {removed} player(s).", messages.SUCCESS)


@admin.register(Penalty)
class PenaltyAdmin(admin.ModelAdmin):
    list_display = ("id", "user", "table", "game", "seat", "points", "reason", "moderator", "created_at")
    list_filter = ("reason",)
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
