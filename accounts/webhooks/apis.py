"""Webhook endpoints (docs/integrations.md): register, list, delete, see deliveries, redeliver."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.webhooks import selectors, services
from accounts.webhooks.models import MessageStatus, WebhookEvent
from infra.api.errors import ErrorCode
from infra.api.schema import error_responses
from infra.api.serializers import StrictInputSerializer

_WEBHOOK_ID = OpenApiParameter("webhook_id", OpenApiTypes.INT, OpenApiParameter.PATH)
_DELIVERY_ID = OpenApiParameter("delivery_id", OpenApiTypes.INT, OpenApiParameter.PATH)


@extend_schema_field(
    # The scheme as accounts/webhooks/sender.py `target_check` reads it (urlsplit lowers its case);
    # only WEBHOOK_ALLOW_PRIVATE (a local receiver, never production) also allows http.
    {"type": "string", "format": "uri", "maxLength": 2000, "pattern": "^[Hh][Tt][Tt][Pp][Ss]://"}
)
class WebhookUrlField(serializers.CharField):
    pass


class WebhookCreateInputSerializer(StrictInputSerializer):
    url = WebhookUrlField(max_length=2000, help_text="https, to a public address.")
    events = serializers.ListField(child=serializers.ChoiceField(choices=WebhookEvent.choices), min_length=1)


class WebhookOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField()
    events = serializers.ListField(child=serializers.ChoiceField(choices=WebhookEvent.choices))
    active = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    disabled_reason = serializers.CharField(help_text="Why it was disabled; empty while active.")


class WebhookCreatedOutputSerializer(WebhookOutputSerializer):
    secret = serializers.CharField(help_text="`whsec_<base64 key>`: verify signatures with it. Shown once.")


class WebhookListOutputSerializer(serializers.Serializer):
    webhooks = WebhookOutputSerializer(many=True)


class WebhookDeliveryOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    webhook_id = serializers.CharField(source="message.msg_id", help_text="The `webhook-id` header.")
    event = serializers.ChoiceField(source="message.event", choices=WebhookEvent.choices)
    message_status = serializers.ChoiceField(source="message.status", choices=MessageStatus.choices)
    attempt = serializers.IntegerField()
    status_code = serializers.IntegerField(allow_null=True)
    success = serializers.BooleanField()
    duration_ms = serializers.IntegerField()
    response_excerpt = serializers.CharField(help_text="The first 500 characters of the answer.")
    error = serializers.CharField()
    created_at = serializers.DateTimeField()


class WebhookDeliveryListOutputSerializer(serializers.Serializer):
    deliveries = WebhookDeliveryOutputSerializer(many=True)


class WebhookRedeliverOutputSerializer(serializers.Serializer):
    webhook_id = serializers.CharField(source="msg_id")
    event = serializers.ChoiceField(choices=WebhookEvent.choices)
    status = serializers.ChoiceField(choices=MessageStatus.choices)


_WEBHOOK_EXAMPLE = {
    "id": 3,
    "url": "https://club.example/hooks/baohuang",
    "events": ["game.over", "table.closed"],
    "active": True,
    "created_at": "2026-12-01T03:00:00Z",
    "disabled_reason": "",
}


class WebhooksApi(APIView):
    @extend_schema(
        operation_id="webhooks_create",
        tags=["webhooks"],
        request=WebhookCreateInputSerializer,
        responses={
            201: WebhookCreatedOutputSerializer,
            **error_responses(ErrorCode.INVALID_REQUEST, ErrorCode.NOT_AUTHENTICATED),
        },
        examples=[
            OpenApiExample(
                "created",
                value={**_WEBHOOK_EXAMPLE, "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"},
                response_only=True,
                status_codes=["201"],
            )
        ],
        description=(
            "Events of the tables you created or sit at (every table for staff), signed per Standard "
            "Webhooks. The URL must be https to a public address; it is checked again at each delivery."
        ),
    )
    def post(self, request):
        data = WebhookCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        webhook = services.webhook_create(owner=request.user, **data.validated_data)
        return Response(WebhookCreatedOutputSerializer(webhook).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="webhooks_list",
        tags=["webhooks"],
        responses={200: WebhookListOutputSerializer, **error_responses(ErrorCode.NOT_AUTHENTICATED)},
        examples=[
            OpenApiExample(
                "webhooks", value={"webhooks": [_WEBHOOK_EXAMPLE]}, response_only=True, status_codes=["200"]
            )
        ],
    )
    def get(self, request):
        webhooks = selectors.webhooks_of(owner=request.user)
        return Response({"webhooks": WebhookOutputSerializer(webhooks, many=True).data})


class WebhookDetailApi(APIView):
    @extend_schema(
        operation_id="webhooks_get",
        tags=["webhooks"],
        parameters=[_WEBHOOK_ID],
        responses={
            200: WebhookOutputSerializer,
            **error_responses(ErrorCode.NOT_AUTHENTICATED, ErrorCode.NOT_FOUND),
        },
    )
    def get(self, request, webhook_id: int):
        return Response(
            WebhookOutputSerializer(selectors.webhook_get(owner=request.user, webhook_id=webhook_id)).data
        )

    @extend_schema(
        operation_id="webhooks_delete",
        tags=["webhooks"],
        parameters=[_WEBHOOK_ID],
        request=None,
        responses={204: None, **error_responses(ErrorCode.NOT_AUTHENTICATED, ErrorCode.NOT_FOUND)},
    )
    def delete(self, request, webhook_id: int):
        services.webhook_delete(webhook=selectors.webhook_get(owner=request.user, webhook_id=webhook_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookDeliveriesApi(APIView):
    @extend_schema(
        operation_id="webhooks_deliveries",
        tags=["webhooks"],
        parameters=[_WEBHOOK_ID],
        responses={
            200: WebhookDeliveryListOutputSerializer,
            **error_responses(ErrorCode.NOT_AUTHENTICATED, ErrorCode.NOT_FOUND),
        },
        description="Every attempt (the latest 100, newest first): status, duration, the answer's start.",
    )
    def get(self, request, webhook_id: int):
        webhook = selectors.webhook_get(owner=request.user, webhook_id=webhook_id)
        deliveries = selectors.webhook_deliveries(webhook=webhook)
        return Response({"deliveries": WebhookDeliveryOutputSerializer(deliveries, many=True).data})


class WebhookRedeliverApi(APIView):
    @extend_schema(
        operation_id="webhooks_redeliver",
        tags=["webhooks"],
        parameters=[_WEBHOOK_ID, _DELIVERY_ID],
        request=None,
        responses={
            202: WebhookRedeliverOutputSerializer,
            **error_responses(ErrorCode.NOT_AUTHENTICATED, ErrorCode.NOT_FOUND),
        },
        description=(
            "Send that delivery's message again, now, with the same `webhook-id`; the retry schedule "
            "starts over. A disabled webhook gets this attempt too, and is enabled again if it succeeds."
        ),
    )
    def post(self, request, webhook_id: int, delivery_id: int):
        webhook = selectors.webhook_get(owner=request.user, webhook_id=webhook_id)
        delivery = selectors.webhook_delivery_get(webhook=webhook, delivery_id=delivery_id)
        message = services.message_redeliver(message=delivery.message)
        return Response(WebhookRedeliverOutputSerializer(message).data, status=status.HTTP_202_ACCEPTED)
