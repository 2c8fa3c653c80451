from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services
from config.api.errors import ErrorCode
from config.api.schema import error_responses
from config.api.serializers import StrictInputSerializer


class UserOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    is_guest = serializers.BooleanField()
    is_staff = serializers.BooleanField()
    banned = serializers.BooleanField()


class AuthCredentialsInputSerializer(StrictInputSerializer):
    username = serializers.RegexField(r"^[\w.@+-]+\Z", max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False)


class AuthUserTokenOutputSerializer(serializers.Serializer):
    user = UserOutputSerializer()
    token = serializers.CharField()


class AuthTokenOutputSerializer(serializers.Serializer):
    token = serializers.CharField()


class AuthEmptyInputSerializer(StrictInputSerializer):
    pass


_USER_EXAMPLE = {"id": 7, "username": "lihua", "is_guest": False, "is_staff": False, "banned": False}
_TOKEN = "3f2a6c0d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a49"


class _AuthEndpoint(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_scope = "auth"

    def get_throttles(self):
        from rest_framework.throttling import ScopedRateThrottle

        return [ScopedRateThrottle()]


class AuthRegisterApi(_AuthEndpoint):
    @extend_schema(
        operation_id="auth_register",
        tags=["auth"],
        auth=[],
        request=AuthCredentialsInputSerializer,
        responses={
            201: AuthUserTokenOutputSerializer,
            **error_responses(ErrorCode.INVALID_REQUEST, ErrorCode.THROTTLED),
        },
        examples=[
            OpenApiExample(
                "register", value={"username": "lihua", "password": "s3cret-pass"}, request_only=True
            ),
            OpenApiExample(
                "registered",
                value={"user": _USER_EXAMPLE, "token": _TOKEN},
                response_only=True,
                status_codes=["201"],
            ),
        ],
    )
    def post(self, request):
        data = AuthCredentialsInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user, key = services.user_register(**data.validated_data)
        return Response(
            {"user": UserOutputSerializer(user).data, "token": key}, status=status.HTTP_201_CREATED
        )


class AuthTokenApi(_AuthEndpoint):
    @extend_schema(
        operation_id="auth_token",
        tags=["auth"],
        auth=[],
        request=AuthCredentialsInputSerializer,
        responses={
            200: AuthTokenOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.PERMISSION_DENIED,
                ErrorCode.THROTTLED,
            ),
        },
        examples=[OpenApiExample("token", value={"token": _TOKEN}, response_only=True, status_codes=["200"])],
    )
    def post(self, request):
        data = AuthCredentialsInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response({"token": services.token_obtain(**data.validated_data)})


class AuthGuestApi(_AuthEndpoint):
    @extend_schema(
        operation_id="auth_guest",
        tags=["auth"],
        auth=[],
        request=None,
        responses={
            201: AuthUserTokenOutputSerializer,
            **error_responses(ErrorCode.INVALID_REQUEST, ErrorCode.THROTTLED),
        },
        examples=[
            OpenApiExample(
                "guest",
                value={
                    "user": {**_USER_EXAMPLE, "username": "guest-5f3a9c2b1d0e", "is_guest": True},
                    "token": _TOKEN,
                },
                response_only=True,
                status_codes=["201"],
            )
        ],
    )
    def post(self, request):
        user, key = services.user_register_guest()
        return Response(
            {"user": UserOutputSerializer(user).data, "token": key}, status=status.HTTP_201_CREATED
        )


class AuthLogoutApi(APIView):
    @extend_schema(
        operation_id="auth_logout",
        tags=["auth"],
        request=None,
        responses={
            204: None,
            **error_responses(
                ErrorCode.INVALID_REQUEST, ErrorCode.NOT_AUTHENTICATED, ErrorCode.PERMISSION_DENIED
            ),
        },
        description="Revokes the token used for this request; other tokens of the user stay valid.",
    )
    def post(self, request):
        services.token_revoke(token=request.auth)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeApi(APIView):
    @extend_schema(
        operation_id="me",
        tags=["auth"],
        responses={200: UserOutputSerializer, **error_responses(ErrorCode.NOT_AUTHENTICATED)},
        examples=[OpenApiExample("me", value=_USER_EXAMPLE, response_only=True, status_codes=["200"])],
    )
    def get(self, request):
        return Response(UserOutputSerializer(request.user).data)
