"""The admin of a user's push devices: django-push-notifications registers its device models itself
(its admin, with config/admin_site.py's lookup rule); ours shows the API's handles and deliveries."""

from django.contrib import admin

from accounts.push.models import PushDelivery, PushDevice


@admin.register(PushDevice)
class PushDeviceAdmin(admin.ModelAdmin):
    list_display = ("id", "user", "platform", "locale", "created_at")
    list_filter = ("platform",)
    raw_id_fields = ("user", "apns", "fcm", "webpush", "auth_token")


@admin.register(PushDelivery)
class PushDeliveryAdmin(admin.ModelAdmin):
    list_display = ("id", "device", "seq", "kind", "status", "attempts", "created_at")
    list_filter = ("status", "kind")
    raw_id_fields = ("device",)
