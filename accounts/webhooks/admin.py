"""Admin pages for webhooks (never their signing secret), their messages and every attempt."""

from django.contrib import admin

from accounts.webhooks.models import Webhook, WebhookDelivery, WebhookMessage


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    list_display = ("id", "owner", "url", "events", "active", "failures_in_row", "disabled_at", "created_at")
    list_filter = ("active",)
    search_fields = ("owner__username", "url")
    list_select_related = ("owner",)
    exclude = ("secret",)
    readonly_fields = ("owner", "created_at", "failures_in_row", "disabled_at", "disabled_reason")
    list_per_page = 50

    def has_add_permission(self, request) -> bool:
        return False  # registered through the API, which checks the URL and shows the secret once


class WebhookDeliveryInline(admin.TabularInline):
    model = WebhookDelivery
    fields = ("attempt", "status_code", "success", "duration_ms", "error", "response_excerpt", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("attempt", "id")

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(WebhookMessage)
class WebhookMessageAdmin(admin.ModelAdmin):
    list_display = ("id", "msg_id", "event", "webhook", "status", "attempts", "next_attempt_at", "created_at")
    list_filter = ("status", "event")
    search_fields = ("msg_id", "webhook__url", "webhook__owner__username")
    list_select_related = ("webhook",)
    readonly_fields = (
        "webhook",
        "msg_id",
        "event",
        "body",
        "table_id",
        "status",
        "attempts",
        "next_attempt_at",
        "created_at",
        "delivered_at",
        "failure_reason",
    )
    inlines = [WebhookDeliveryInline]
    list_per_page = 50

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = ("id", "message", "attempt", "status_code", "success", "duration_ms", "created_at")
    list_filter = ("success",)
    search_fields = ("message__msg_id",)
    list_select_related = ("message",)
    readonly_fields = (
        "message",
        "attempt",
        "status_code",
        "success",
        "duration_ms",
        "response_excerpt",
        "error",
        "created_at",
    )
    list_per_page = 50

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
