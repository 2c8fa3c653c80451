"""The admin of push devices: django-push-notifications' device models with its own admins (their
actions send a test push), less the tokens: a device token or a subscription's keys are credentials
to reach a player's phone, so they are neither shown, searched nor edited here; a device is found by
its user. Ours show the API's handles and the deliveries."""

from django.contrib import admin
from push_notifications import admin as library_admin
from push_notifications.models import APNSDevice, GCMDevice, WebPushDevice, WNSDevice

from accounts.push.models import PushDelivery, PushDevice

SECRETS = ("registration_id", "p256dh", "auth")

for model, library_class in (
    (APNSDevice, library_admin.DeviceAdmin),
    (GCMDevice, library_admin.GCMDeviceAdmin),
    (WNSDevice, library_admin.DeviceAdmin),
    (WebPushDevice, library_admin.WebPushDeviceAdmin),
):
    fields = [f.name for f in model._meta.concrete_fields if not f.primary_key]
    admin.site.unregister(model)
    admin.site.register(
        model,
        type(
            library_class.__name__,
            (library_class,),
            {
                "__module__": __name__,
                "list_display": tuple(c for c in library_class.list_display if c not in SECRETS),
                "search_fields": ("name", "user__username"),
                "exclude": tuple(f for f in SECRETS if f in fields),
                "raw_id_fields": ("user",),
            },
        ),
    )


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
