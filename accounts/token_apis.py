"""Personal access tokens (docs/integrations.md): `POST/GET auth/tokens`, `DELETE auth/tokens/{id}`;
the list and the revocation cover login tokens too, each a signed-in device (docs/client-guide.md
"Accounts")."""

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import account_services, selectors, services
from accounts.models import AuthToken
from accounts.scopes import Scope
from infra.api.compression import secret_answer
from infra.api.errors import ErrorCode
from infra.api.schema import error_responses
from infra.api.serializers import StrictInputSerializer


class PersonalTokenCreateInputSerializer(StrictInputSerializer):
    name = serializers.CharField(max_length=100)
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=Scope.choices), min_length=1)
    expires_in_days = serializers.IntegerField(
        min_value=1,
        max_value=settings.PERSONAL_TOKEN_MAX_DAYS,
        required=False,
        help_text=f"Default {settings.PERSONAL_TOKEN_DEFAULT_DAYS}.",
    )


class PersonalTokenOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=Scope.choices))
    prefix = serializers.CharField(help_text="The key's first characters, to recognise it.")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    current = serializers.SerializerMethodField(help_text="This request was made with this token.")

    def get_current(self, token) -> bool:
        return _is_current(token, self.context)


def _is_current(token: AuthToken, context: dict) -> bool:
    credential = context.get("credential")
    return isinstance(credential, AuthToken) and credential.pk == token.pk


class PersonalTokenCreatedOutputSerializer(PersonalTokenOutputSerializer):
    token = serializers.CharField(help_text="The secret; shown in this answer only.")


class LoginSessionOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="Revoke it with `DELETE auth/tokens/{id}`.")
    device = serializers.CharField(help_text="The `device` name given at sign-in; empty if none was.")
    created_at = serializers.DateTimeField(help_text="Signed in at.")
    last_used_at = serializers.SerializerMethodField(
        help_text="Last used, to within a day (written at most daily); the sign-in itself counts."
    )
    expires_at = serializers.DateTimeField(help_text="Moves forward with use (TOKEN_TTL_DAYS).")
    current = serializers.SerializerMethodField(help_text="This request was made with this token.")

    def get_last_used_at(self, token) -> str:
        return serializers.DateTimeField().to_representation(token.last_used_at or token.created_at)

    def get_current(self, token) -> bool:
        return _is_current(token, self.context)


class PersonalTokenListOutputSerializer(serializers.Serializer):
    tokens = PersonalTokenOutputSerializer(many=True, help_text="Personal access tokens that still work.")
    sessions = LoginSessionOutputSerializer(
        many=True, help_text="Login tokens that still work: each a signed-in device, newest first."
    )


_TOKEN_EXAMPLE = {
    "id": 9,
    "name": "club site",
    "scopes": ["read", "play"],
    "prefix": "bhp_3f2a6c0d",
    "created_at": "2026-12-01T03:00:00Z",
    "expires_at": "2027-03-01T03:00:00Z",
    "last_used_at": None,
    "current": False,
}
_SESSION_EXAMPLE = {
    "id": 12,
    "device": "Li Hua's phone",
    "created_at": "2026-12-01T03:00:00Z",
    "last_used_at": "2026-12-05T08:00:00Z",
    "expires_at": "2027-01-04T08:00:00Z",
    "current": True,
}


class AuthTokensApi(APIView):
    @extend_schema(
        operation_id="auth_tokens_create",
        tags=["auth"],
        request=PersonalTokenCreateInputSerializer,
        responses={
            201: PersonalTokenCreatedOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.PERMISSION_DENIED,
                ErrorCode.TOO_MANY_TOKENS,
            ),
        },
        examples=[
            OpenApiExample(
                "create",
                value={"name": "club site", "scopes": ["read", "play"], "expires_in_days": 90},
                request_only=True,
            ),
            OpenApiExample(
                "created",
                value={**_TOKEN_EXAMPLE, "token": "bhp_3f2a6c0d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a49"},
                response_only=True,
                status_codes=["201"],
            ),
        ],
        description=(
            "A personal access token with the given scopes (`read`, `play`, `tables`, `webhooks`, "
            "`tokens`, `moderation` for staff). Only a login token (from `auth/token`, "
            "`auth/register` or `auth/guest`) creates one: a personal access token or an OAuth token "
            "gets `403 permission_denied` (no credential yields a longer-lived or broader one), and a "
            "token without the `tokens` scope `403 missing_scope`. It gets no scope the login token's "
            "user may not have (`403 missing_scope`). Only its hash is stored: the secret is in this "
            "answer only. A user has at most PERSONAL_TOKENS_PER_USER (default 20) that still work: "
            "one more is `409 too_many_tokens` (revoke one first)."
        ),
    )
    def post(self, request):
        data = PersonalTokenCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token, key = services.personal_token_mint(
            user=request.user,
            credential=request.auth,
            name=data.validated_data["name"],
            scopes=data.validated_data["scopes"],
            expires_in_days=data.validated_data.get("expires_in_days"),
        )
        created = PersonalTokenOutputSerializer(token, context={"credential": request.auth}).data
        body = {**created, "token": key}
        return secret_answer(Response(body, status=status.HTTP_201_CREATED))

    @extend_schema(
        operation_id="auth_tokens_list",
        summary="List personal access tokens and sessions",
        tags=["auth"],
        responses={200: PersonalTokenListOutputSerializer, **error_responses(ErrorCode.NOT_AUTHENTICATED)},
        examples=[
            OpenApiExample(
                "tokens",
                value={"tokens": [_TOKEN_EXAMPLE], "sessions": [_SESSION_EXAMPLE]},
                response_only=True,
                status_codes=["200"],
            )
        ],
        description=(
            "Your credentials that still work, never their secrets: `tokens`, your personal access "
            "tokens; `sessions`, your login tokens (one per signed-in device, with its `device` name). "
            "`current` marks the one this request was made with. OAuth apps' tokens are not listed."
        ),
    )
    def get(self, request):
        context = {"credential": request.auth}
        tokens = selectors.personal_tokens(user=request.user)
        sessions = selectors.login_sessions(user=request.user)
        return Response(
            {
                "tokens": PersonalTokenOutputSerializer(tokens, many=True, context=context).data,
                "sessions": LoginSessionOutputSerializer(sessions, many=True, context=context).data,
            }
        )


class AuthTokenDetailApi(APIView):
    @extend_schema(
        operation_id="auth_tokens_delete",
        summary="Revoke a personal access token or a session",
        tags=["auth"],
        parameters=[OpenApiParameter("token_id", OpenApiTypes.INT, OpenApiParameter.PATH)],
        request=None,
        responses={204: None, **error_responses(ErrorCode.NOT_AUTHENTICATED, ErrorCode.NOT_FOUND)},
        description=(
            "Revoke one of your tokens, a personal access token or a login token (a session of "
            "`sessions`: the lost phone's), by its `id`; it stops working at once, your other "
            "sessions stay. Revoking the `current` one signs this device out, as `auth/logout` does."
        ),
    )
    def delete(self, request, token_id: int):
        account_services.session_revoke(user=request.user, token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
