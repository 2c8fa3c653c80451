"""`POST bots` (staff): an integrator's bot account and its first token (docs/integrations.md)."""

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAdminUser, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services
from accounts.apis import UsernameField, UserOutputSerializer
from accounts.models import User
from accounts.permissions import EndpointScope, IsNotBanned
from infra.api.compression import secret_answer
from infra.api.errors import ApiError, ErrorCode
from infra.api.schema import error_responses
from infra.api.serializers import StrictInputSerializer


class BotCreateInputSerializer(StrictInputSerializer):
    username = UsernameField()
    owner = serializers.IntegerField(help_text="The integrator's user id: who runs this bot.")


class BotCreatedOutputSerializer(serializers.Serializer):
    user = UserOutputSerializer()
    owner = serializers.IntegerField()
    token = serializers.CharField(help_text="A personal access token (read, play, tables); shown once.")


class BotCreateApi(APIView):
    permission_classes = [IsAuthenticated, IsNotBanned, IsAdminUser, EndpointScope]

    @extend_schema(
        operation_id="bots_create",
        tags=["bots"],
        request=BotCreateInputSerializer,
        responses={
            201: BotCreatedOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST, ErrorCode.NOT_AUTHENTICATED, ErrorCode.PERMISSION_DENIED
            ),
        },
        examples=[
            OpenApiExample(
                "created",
                value={
                    "user": {
                        "id": 40,
                        "username": "club-bot",
                        "is_guest": False,
                        "is_staff": False,
                        "banned": False,
                        "is_bot": True,
                    },
                    "owner": 7,
                    "token": "bhp_3f2a6c0d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a49",
                },
                response_only=True,
                status_codes=["201"],
            )
        ],
        description=(
            "Staff only. A bot account of an integrator: it plays through the same API with the "
            "returned token (take tickets, sit at tables); players see `is_bot` on it."
        ),
    )
    def post(self, request):
        data = BotCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        owner = User.objects.filter(pk=data.validated_data["owner"]).first()
        if owner is None:
            raise ApiError(ErrorCode.INVALID_REQUEST, "No such owner.", extra={"owner": ["unknown"]})
        user, key = services.bot_register(username=data.validated_data["username"], owner=owner)
        body = {"user": UserOutputSerializer(user).data, "owner": owner.pk, "token": key}
        return secret_answer(Response(body, status=status.HTTP_201_CREATED))
