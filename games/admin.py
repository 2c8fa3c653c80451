"""Admin for deals. Hands and seeds (setup, state, private events) are shown only to superusers and
holders of games.view_hidden_cards: a moderator must not be able to read a running deal's cards.

A deal's page stays small however long the deal: its events are paged on their own list (linked
from the page, the latest few shown), and setup, state and final view are shown cut to a preview
(a whole state once made a 500 KB page)."""

import json

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from games.models import Event, Game, IdempotencyKey

# Characters of a JSON field shown on a deal's page.
JSON_PREVIEW_CHARS = 2000
RECENT_EVENTS = 10


def may_see_hidden(request) -> bool:
    return request.user.is_superuser or request.user.has_perm("games.view_hidden_cards")


def _preview(value) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if len(text) > JSON_PREVIEW_CHARS:
        text = f"{text[:JSON_PREVIEW_CHARS]} … ({len(text) - JSON_PREVIEW_CHARS} more characters)"
    return format_html('<pre style="white-space: pre-wrap">{}</pre>', text)


def event_shown(event: Event, request) -> str:
    if "private_to" in event.data and not may_see_hidden(request):
        return f"private to {event.data['private_to']}"
    text = json.dumps(event.data, ensure_ascii=False)
    return text if len(text) <= 300 else text[:300] + " …"


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    """A deal's events, paged (reached from the deal's page)."""

    list_display = ("game", "seq", "type", "version", "shown_data", "created_at")
    list_filter = ("type",)
    search_fields = ("=game__id",)
    list_per_page = 50
    ordering = ("game", "seq")
    show_full_result_count = False
    # A deal's page links here (GameAdmin.events); config/admin_site.py refuses other lookups.
    link_lookups = ("game__id__exact",)

    def get_queryset(self, request):
        self._request = request
        return super().get_queryset(request)

    @admin.display(description=_("data"))
    def shown_data(self, event: Event) -> str:
        return event_shown(event, self._request)

    def get_fields(self, request, obj=None):
        return ("game", "seq", "type", "version", "shown_data", "created_at")

    def get_readonly_fields(self, request, obj=None):
        self._request = request
        return self.get_fields(request, obj)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "table", "number", "preset", "status", "unscored", "version", "created_at")
    list_filter = ("status", "preset", "unscored", "created_at")
    # A player's deals by his name: through GamePlayer, the index of who played.
    search_fields = ("=id", "=table__id", "seat_players__user__username")
    # A user's admin page links to his deals (matchmaking/moderation/admin.py); config/admin_site.py
    # refuses other lookups.
    link_lookups = ("seat_players__user__id__exact",)
    ordering = ("-id",)  # newest first, in the list and the autocomplete alike (a stable page)
    list_per_page = 50
    show_full_result_count = False
    base_fields = (
        "table",
        "number",
        "preset",
        "options",
        "status",
        "unscored",
        "version",
        "last_seq",
        "deadline",
        "players",
        "seat_user_ids",
        "trustee",
        "trustee_entries",
        "created_at",
        "finished_at",
        "events",
    )

    def get_queryset(self, request):
        # The list never loads the large JSON columns.
        return super().get_queryset(request).defer("setup", "state", "final")

    def get_fields(self, request, obj=None):
        self._request = request
        if may_see_hidden(request):
            return (*self.base_fields, "shown_setup", "shown_state", "shown_final")
        return self.base_fields

    def get_readonly_fields(self, request, obj=None):
        return self.get_fields(request, obj)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        # Deals change only through moves; the admin looks, it does not edit.
        return False

    @admin.display(description=_("events"))
    def events(self, game: Game) -> str:
        url = reverse("admin:games_event_changelist") + f"?game__id__exact={game.pk}"
        recent = list(Event.objects.filter(game=game).order_by("-seq")[:RECENT_EVENTS])
        rows = format_html_join(
            "",
            "<li>#{} {}: {}</li>",
            ((e.seq, e.type, event_shown(e, self._request)) for e in reversed(recent)),
        )
        return format_html(
            '<a href="{}" id="game-events-link">All {} events, paged</a><ul>{}</ul>', url, game.last_seq, rows
        )

    @admin.display(description=_("setup"))
    def shown_setup(self, game: Game) -> str:
        return _preview(game.setup)

    @admin.display(description=_("state"))
    def shown_state(self, game: Game) -> str:
        return _preview(game.state)

    @admin.display(description=_("final view"))
    def shown_final(self, game: Game) -> str:
        return _preview(game.final)


@admin.register(IdempotencyKey)
class IdempotencyKeyAdmin(admin.ModelAdmin):
    list_display = ("user", "key", "status_code", "created_at")
    fields = ("user", "key", "request_hash", "status_code", "created_at")
    readonly_fields = fields
    search_fields = ("user__username", "key")
    list_per_page = 50
