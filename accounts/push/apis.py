"""`me/devices`, `me/notifications`, `me/inbox` and `push/vapid-key` (docs/notifications.md)."""

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import AuthToken
from accounts.push import devices, services
from accounts.push.models import Platform, PushDevice
from accounts.push_kinds import KINDS
from infra.api.errors import ApiError, ErrorCode
from infra.api.schema import error_responses
from infra.api.serializers import StrictInputSerializer

TAGS = ["notifications"]


class SubscriptionKeysInputSerializer(StrictInputSerializer):
    p256dh = serializers.CharField(max_length=88)
    auth = serializers.CharField(max_length=24)


class SubscriptionInputSerializer(StrictInputSerializer):
    """A browser's PushSubscription as `toJSON()` gives it."""

    endpoint = serializers.CharField(max_length=2000)
    expirationTime = serializers.IntegerField(required=False, allow_null=True)  # noqa: N815 - the browser's
    keys = SubscriptionKeysInputSerializer()


class DeviceCreateInputSerializer(StrictInputSerializer):
    platform = serializers.ChoiceField(choices=Platform.choices)
    token = serializers.CharField(
        required=False, max_length=200, help_text="apns: the device token (hex); fcm: the registration token."
    )
    subscription = SubscriptionInputSerializer(required=False, help_text="webpush only.")
    app_id = serializers.CharField(required=False, max_length=64, allow_blank=True)
    locale = serializers.CharField(
        required=False, max_length=35, help_text="The language of its notifications: zh-Hans or en (default)."
    )
    name = serializers.CharField(required=False, max_length=100, allow_blank=True)

    def validate(self, attrs):
        webpush = attrs["platform"] == Platform.WEBPUSH
        if webpush != ("subscription" in attrs) or webpush == ("token" in attrs):
            raise serializers.ValidationError(
                "webpush takes a `subscription`; apns and fcm take a `token` (and not the other)."
            )
        return attrs


class DeviceOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    platform = serializers.ChoiceField(choices=Platform.choices)
    locale = serializers.CharField()
    name = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()

    def get_name(self, device) -> str:
        return device.library_device.name or ""


class DeviceListOutputSerializer(serializers.Serializer):
    devices = DeviceOutputSerializer(many=True)


class MeDevicesApi(APIView):
    @extend_schema(
        operation_id="me_devices_create",
        summary="Register a device for push notifications",
        tags=TAGS,
        request=DeviceCreateInputSerializer,
        responses={
            201: DeviceOutputSerializer,
            200: DeviceOutputSerializer,
            **error_responses(ErrorCode.INVALID_REQUEST, ErrorCode.NOT_AUTHENTICATED),
        },
        description=(
            "Register this device for push notifications (docs/notifications.md). 201 when new; 200 when "
            "you had registered this token already. A token another account registered moves to you. "
            "Signing this session out removes the device. The token is never shown again."
        ),
    )
    def post(self, request):
        data = DeviceCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        subscription = values.get("subscription")
        device, created = devices.device_register(
            user=request.user,
            auth_token_id=request.auth.pk if isinstance(request.auth, AuthToken) else None,
            platform=values["platform"],
            token=subscription["endpoint"] if subscription else values["token"],
            keys=subscription["keys"] if subscription else None,
            app_id=values.get("app_id"),
            locale=values.get("locale"),
            name=values.get("name"),
        )
        return Response(
            DeviceOutputSerializer(device).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )

    @extend_schema(
        operation_id="me_devices_list",
        summary="List your devices",
        tags=TAGS,
        responses={200: DeviceListOutputSerializer, **error_responses(ErrorCode.NOT_AUTHENTICATED)},
    )
    def get(self, request):
        mine = PushDevice.objects.filter(user=request.user).select_related("apns", "fcm", "webpush")
        return Response({"devices": DeviceOutputSerializer(mine, many=True).data})


class MeDeviceDetailApi(APIView):
    @extend_schema(
        operation_id="me_devices_delete",
        summary="Remove a device",
        tags=TAGS,
        parameters=[OpenApiParameter("device_id", int, OpenApiParameter.PATH)],
        request=None,
        responses={204: None, **error_responses(ErrorCode.NOT_AUTHENTICATED, ErrorCode.NOT_FOUND)},
    )
    def delete(self, request, device_id: int):
        devices.device_remove(user=request.user, device_id=device_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class QuietHoursSerializer(StrictInputSerializer):
    start = serializers.TimeField(format="%H:%M")
    end = serializers.TimeField(format="%H:%M")


class NotificationsOutputSerializer(serializers.Serializer):
    kinds = serializers.DictField(
        child=serializers.BooleanField(), help_text="Every pushable kind: on or off."
    )
    quiet_hours = QuietHoursSerializer(allow_null=True, help_text="No pushes between these, in `time_zone`.")
    time_zone = serializers.CharField()


class NotificationsPatchInputSerializer(StrictInputSerializer):
    kinds = serializers.DictField(child=serializers.BooleanField(), required=False)
    quiet_hours = QuietHoursSerializer(required=False, allow_null=True)
    time_zone = serializers.CharField(required=False, max_length=64)


class ExportNotificationsOutputSerializer(NotificationsOutputSerializer):
    """The preferences as `GET me/export` holds them (accounts/account_apis.py)."""

    def to_representation(self, preferences):
        return _preferences_body(preferences)


def _preferences_body(preferences) -> dict:
    quiet = None
    if preferences.quiet_start is not None and preferences.quiet_end is not None:
        quiet = {"start": preferences.quiet_start, "end": preferences.quiet_end}
    return NotificationsOutputSerializer(
        {
            "kinds": services.kinds_enabled(preferences),
            "quiet_hours": quiet,
            "time_zone": preferences.time_zone,
        }
    ).data


class MeNotificationsApi(APIView):
    @extend_schema(
        operation_id="me_notifications_get",
        summary="Your notification preferences",
        tags=TAGS,
        responses={200: NotificationsOutputSerializer, **error_responses(ErrorCode.NOT_AUTHENTICATED)},
    )
    def get(self, request):
        return Response(_preferences_body(services.preferences_of(user_id=request.user.pk)))

    @extend_schema(
        operation_id="me_notifications_update",
        summary="Change your notification preferences",
        tags=TAGS,
        request=NotificationsPatchInputSerializer,
        responses={
            200: NotificationsOutputSerializer,
            **error_responses(ErrorCode.INVALID_REQUEST, ErrorCode.NOT_AUTHENTICATED),
        },
        description=f"Kinds: {', '.join(KINDS)}. Unchanged fields keep their values.",
    )
    def patch(self, request):
        data = NotificationsPatchInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        preferences = services.preferences_update(user_id=request.user.pk, changes=data.validated_data)
        return Response(_preferences_body(preferences))


class InboxItemOutputSerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="The feed entry's seq: the item's id.")
    type = serializers.CharField()
    data = serializers.DictField(help_text="The feed entry, as GET me/events gave it.")
    created_at = serializers.DateTimeField()
    read_at = serializers.DateTimeField(allow_null=True)


class InboxOutputSerializer(serializers.Serializer):
    items = InboxItemOutputSerializer(many=True)
    unread = serializers.IntegerField()
    more = serializers.BooleanField(help_text="Older items follow: ask again with `before`.")


class InboxQueryInputSerializer(StrictInputSerializer):
    before = serializers.IntegerField(required=False, min_value=1)
    unread = serializers.BooleanField(required=False, default=False)


class MeInboxApi(APIView):
    @extend_schema(
        operation_id="me_inbox",
        summary="Your inbox",
        tags=TAGS,
        parameters=[InboxQueryInputSerializer],
        responses={
            200: InboxOutputSerializer,
            **error_responses(ErrorCode.INVALID_REQUEST, ErrorCode.NOT_AUTHENTICATED),
        },
        description=(
            "Newest first, 50 a page: invitations and moderation outcomes, kept after the feed prunes."
        ),
    )
    def get(self, request):
        query = InboxQueryInputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        page = services.inbox_page(
            user_id=request.user.pk,
            before=query.validated_data.get("before"),
            unread_only=query.validated_data["unread"],
        )
        return Response(InboxOutputSerializer(page).data)


class InboxReadInputSerializer(StrictInputSerializer):
    seqs = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        max_length=500,
        help_text="The items to mark read; omitted: all of them.",
    )


class InboxReadOutputSerializer(serializers.Serializer):
    marked = serializers.IntegerField()


class MeInboxReadApi(APIView):
    @extend_schema(
        operation_id="me_inbox_read",
        summary="Mark inbox items read",
        tags=TAGS,
        request=InboxReadInputSerializer,
        responses={
            200: InboxReadOutputSerializer,
            **error_responses(ErrorCode.INVALID_REQUEST, ErrorCode.NOT_AUTHENTICATED),
        },
    )
    def post(self, request):
        data = InboxReadInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        marked = services.inbox_mark_read(user_id=request.user.pk, seqs=data.validated_data.get("seqs"))
        return Response({"marked": marked})


class VapidKeyOutputSerializer(serializers.Serializer):
    public_key = serializers.CharField(
        help_text="base64url: `applicationServerKey` for pushManager.subscribe."
    )


class PushVapidKeyApi(APIView):
    @extend_schema(
        operation_id="push_vapid_key",
        summary="The Web Push public key",
        tags=TAGS,
        responses={
            200: VapidKeyOutputSerializer,
            **error_responses(ErrorCode.NOT_AUTHENTICATED, ErrorCode.NOT_FOUND),
        },
        description="The server's Web Push (VAPID) public key; 404 when Web Push is not configured.",
    )
    def get(self, request):
        if not settings.WEBPUSH_VAPID_PUBLIC_KEY:
            raise ApiError(ErrorCode.NOT_FOUND, "Web Push is not configured on this server.")
        return Response({"public_key": settings.WEBPUSH_VAPID_PUBLIC_KEY})
