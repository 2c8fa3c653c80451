from django.contrib import admin

from matchmaking.models import Seat, Table


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("seat", "user", "joined_at")
    readonly_fields = ("joined_at",)
    raw_id_fields = ("user",)


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "preset", "status", "private", "deals", "deals_done", "creator", "created_at")
    list_filter = ("status", "preset", "private")
    inlines = [SeatInline]
    readonly_fields = ("scores", "deals_done", "created_at")
    raw_id_fields = ("creator",)

    def get_exclude(self, request, obj=None):
        # Fixed deals hold hands: only those who may see hidden cards see them.
        if request.user.is_superuser or request.user.has_perm("games.view_hidden_cards"):
            return ()
        return ("setups",)
