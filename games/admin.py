"""Admin for deals. Hands and seeds (setup, state, private events) are shown only to superusers and
holders of games.view_hidden_cards: a moderator must not be able to read a running deal's cards."""

import json

from django.contrib import admin
from django.utils.html import format_html

from games.models import Event, Game, IdempotencyKey

HIDDEN = "(hidden: needs the view_hidden_cards permission)"


def _may_see_hidden(request) -> bool:
    return request.user.is_superuser or request.user.has_perm("games.view_hidden_cards")


def _pretty(value) -> str:
    return format_html("<pre>{}</pre>", json.dumps(value, indent=1, ensure_ascii=False))


class EventInline(admin.TabularInline):
    model = Event
    extra = 0
    can_delete = False
    fields = ("seq", "type", "version", "shown_data", "created_at")
    readonly_fields = fields
    ordering = ("seq",)

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description="data")
    def shown_data(self, event: Event) -> str:
        request = getattr(self, "_request", None)
        if "private_to" in event.data and not (request and _may_see_hidden(request)):
            return f"private to {event.data['private_to']}"
        return json.dumps(event.data, ensure_ascii=False)

    def get_queryset(self, request):
        self._request = request
        return super().get_queryset(request)


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "table", "number", "preset", "status", "version", "created_at")
    list_filter = ("status", "preset")
    inlines = [EventInline]
    base_fields = (
        "table",
        "number",
        "preset",
        "options",
        "status",
        "version",
        "last_seq",
        "deadline",
        "players",
        "seat_user_ids",
        "trustee",
        "trustee_entries",
        "created_at",
        "finished_at",
    )

    def get_fields(self, request, obj=None):
        if _may_see_hidden(request):
            return (*self.base_fields, "shown_setup", "shown_state", "shown_final")
        return self.base_fields

    def get_readonly_fields(self, request, obj=None):
        return self.get_fields(request, obj)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        # Deals change only through moves; the admin looks, it does not edit.
        return False

    @admin.display(description="setup")
    def shown_setup(self, game: Game) -> str:
        return _pretty(game.setup)

    @admin.display(description="state")
    def shown_state(self, game: Game) -> str:
        return _pretty(game.state)

    @admin.display(description="final view")
    def shown_final(self, game: Game) -> str:
        return _pretty(game.final)


@admin.register(IdempotencyKey)
class IdempotencyKeyAdmin(admin.ModelAdmin):
    list_display = ("user", "key", "status_code", "created_at")
    fields = ("user", "key", "request_hash", "status_code", "created_at")
    readonly_fields = fields
