from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.authentication import get_authorization_header
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import account_services, selectors, services, throttles
from accounts.models import SanctionKind
from accounts.usernames import username_normalize
from games.engine.rules import PRESETS
from infra.api.compression import secret_answer
from infra.api.errors import ErrorCode
from infra.api.schema import error_responses
from infra.api.serializers import StrictInputSerializer, refuse_body_fields


class UserOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    is_guest = serializers.BooleanField()
    is_staff = serializers.BooleanField()
    is_bot = serializers.BooleanField(help_text="An integrator's bot account (or a seat the server plays).")
    banned = serializers.SerializerMethodField(help_text="An active `ban` sanction (GET me/restrictions).")

    def get_banned(self, user) -> bool:
        return selectors.sanction_active(user_id=user.pk, kinds=[SanctionKind.BAN]) is not None


class UsernameField(serializers.RegexField):
    """NFKC-normalised before it is checked (accounts/usernames.py), so `ａｌｉｃｅ` is `alice`."""

    def __init__(self, **kwargs):
        super().__init__(r"^[\w.@+-]+\Z", max_length=150, **kwargs)

    def to_internal_value(self, data):
        if isinstance(data, str):
            data = username_normalize(data)
        return super().to_internal_value(data)


def device_field() -> serializers.CharField:
    return serializers.CharField(
        max_length=100,
        required=False,
        allow_blank=True,
        help_text=(
            "A name for this device (\"Li Hua's phone\"), shown in `GET auth/tokens` to tell "
            "sessions apart."
        ),
    )


class AuthCredentialsInputSerializer(StrictInputSerializer):
    username = UsernameField()
    password = serializers.CharField(max_length=128, trim_whitespace=False)
    device = device_field()


class AuthGuestInputSerializer(StrictInputSerializer):
    device = device_field()


class AuthUserTokenOutputSerializer(serializers.Serializer):
    user = UserOutputSerializer()
    token = serializers.CharField()


class AuthTokenOutputSerializer(serializers.Serializer):
    token = serializers.CharField()


class AuthEmptyInputSerializer(StrictInputSerializer):
    pass


_USER_EXAMPLE = {
    "id": 7,
    "username": "lihua",
    "is_guest": False,
    "is_staff": False,
    "is_bot": False,
    "banned": False,
}
_TOKEN = "3f2a6c0d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a49"


class _AuthEndpoint(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [throttles.AuthAddressThrottle]


class AuthRegisterApi(_AuthEndpoint):
    @extend_schema(
        operation_id="auth_register",
        tags=["auth"],
        auth=[],
        request=AuthCredentialsInputSerializer,
        description=(
            "A new registered account and its first login token. Sent with a guest's token "
            "(`Authorization: Bearer …`) it is refused, `400 invalid_request` with `extra.upgrade`: "
            "`POST auth/upgrade` keeps the guest's games, ratings, seats and tickets, which a second "
            'account would leave behind (docs/client-guide.md §11).'
        ),
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
        services.register_refuse_guest(authorization=get_authorization_header(request))
        data = AuthCredentialsInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user, key = services.user_register(**data.validated_data)
        return secret_answer(
            Response({"user": UserOutputSerializer(user).data, "token": key}, status=status.HTTP_201_CREATED)
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
                ErrorCode.BANNED,
                ErrorCode.THROTTLED,
                scoped=False,
            ),
        },
        examples=[OpenApiExample("token", value={"token": _TOKEN}, response_only=True, status_codes=["200"])],
    )
    def post(self, request):
        data = AuthCredentialsInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return secret_answer(Response({"token": services.token_obtain(**data.validated_data)}))


class AuthGuestApi(_AuthEndpoint):
    throttle_classes = [throttles.AuthAddressThrottle, throttles.GuestAddressThrottle]

    @extend_schema(
        operation_id="auth_guest",
        tags=["auth"],
        auth=[],
        request=AuthGuestInputSerializer,
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
        data = AuthGuestInputSerializer(data=request.data or {})
        data.is_valid(raise_exception=True)
        user, key = services.user_register_guest(**data.validated_data)
        return secret_answer(
            Response({"user": UserOutputSerializer(user).data, "token": key}, status=status.HTTP_201_CREATED)
        )


class AuthLogoutApi(APIView):
    allowed_while_banned = True

    @extend_schema(
        operation_id="auth_logout",
        tags=["auth"],
        request=None,
        responses={
            204: None,
            **error_responses(ErrorCode.INVALID_REQUEST, ErrorCode.NOT_AUTHENTICATED, banned=False),
        },
        description=(
            "Revokes the token used for this request; other tokens of the user stay valid. "
            "Allowed while banned."
        ),
    )
    def post(self, request):
        refuse_body_fields(request)
        services.token_revoke(token=request.auth)
        return Response(status=status.HTTP_204_NO_CONTENT)


class AuthLogoutAllApi(APIView):
    allowed_while_banned = True

    @extend_schema(
        operation_id="auth_logout_all",
        tags=["auth"],
        request=None,
        responses={
            204: None,
            **error_responses(ErrorCode.INVALID_REQUEST, ErrorCode.NOT_AUTHENTICATED, banned=False),
        },
        description="Revokes every token of the caller (a lost phone, a leaked token). Allowed while banned.",
    )
    def post(self, request):
        refuse_body_fields(request)
        services.tokens_revoke_all(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class SanctionOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    user = serializers.IntegerField(source="user_id")
    kind = serializers.ChoiceField(choices=SanctionKind.choices)
    reason = serializers.CharField()
    moderator = serializers.IntegerField(source="moderator_id", allow_null=True)
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True, help_text="null: until revoked.")
    revoked_at = serializers.DateTimeField(allow_null=True)


SANCTION_EXAMPLE = {
    "id": 4,
    "user": 7,
    "kind": "ban",
    "reason": "Colluded with seat 3 (report 12).",
    "moderator": 2,
    "created_at": "2026-12-01T03:00:00Z",
    "expires_at": "2026-12-08T03:00:00Z",
    "revoked_at": None,
}


class MeRestrictionsOutputSerializer(serializers.Serializer):
    sanctions = SanctionOutputSerializer(many=True)


class MeRestrictionsApi(APIView):
    allowed_while_banned = True

    @extend_schema(
        operation_id="me_restrictions",
        tags=["me"],
        responses={
            200: MeRestrictionsOutputSerializer,
            **error_responses(ErrorCode.NOT_AUTHENTICATED, banned=False),
        },
        examples=[
            OpenApiExample(
                "banned", value={"sanctions": [SANCTION_EXAMPLE]}, response_only=True, status_codes=["200"]
            )
        ],
        description="The caller's active sanctions (`ban`, `queue_ban`). Allowed while banned.",
    )
    def get(self, request):
        sanctions = selectors.sanctions_active(user_id=request.user.pk)
        return Response({"sanctions": SanctionOutputSerializer(sanctions, many=True).data})


class MeDeleteInputSerializer(StrictInputSerializer):
    password = serializers.CharField(
        max_length=128,
        trim_whitespace=False,
        required=False,
        help_text="The account's password; a guest, who has none, sends none.",
    )


class MeApi(APIView):
    # Reading one's own account and deleting it are rights a ban does not take away.
    allowed_while_banned = True

    def get_throttles(self):
        # Deleting checks a password: limited per address like the sign-in.
        if self.request.method == "DELETE":
            return [throttles.AuthAddressThrottle()]
        return super().get_throttles()

    @extend_schema(
        operation_id="me",
        tags=["me"],
        responses={200: UserOutputSerializer, **error_responses(ErrorCode.NOT_AUTHENTICATED, banned=False)},
        examples=[OpenApiExample("me", value=_USER_EXAMPLE, response_only=True, status_codes=["200"])],
    )
    def get(self, request):
        return Response(UserOutputSerializer(request.user).data)

    @extend_schema(
        operation_id="me_delete",
        summary="Delete my account",
        tags=["me"],
        request=MeDeleteInputSerializer,
        responses={
            204: None,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.PERMISSION_DENIED,
                ErrorCode.THROTTLED,
                banned=False,
            ),
        },
        examples=[OpenApiExample("delete", value={"password": "s3cret-pass"}, request_only=True)],
        description=(
            "Deletes your account (docs/client-guide.md \"Your data\"), with the account's "
            "`password` (a wrong one counts toward the sign-in lock-out); a guest, who has no "
            "password, sends none. Every token ends, OAuth ones too; the name is freed (the account "
            "becomes `deleted-<id>`); waiting tickets are cancelled and every table left (a running "
            "deal goes on with the seat in 托管); finished deals keep their records under that name. "
            "Sanctions, reports and the audit log are kept. A login token only (`403 "
            "permission_denied` otherwise). Allowed while banned."
        ),
    )
    def delete(self, request):
        data = MeDeleteInputSerializer(data=request.data or {})
        data.is_valid(raise_exception=True)
        account_services.account_delete(
            user=request.user, credential=request.auth, password=data.validated_data.get("password")
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


# The engine is a pure library (no app): naming its presets keeps accounts free of the games app.
RATING_PRESETS = PRESETS


class RatingLeaderboardQueryInputSerializer(serializers.Serializer):
    preset = serializers.ChoiceField(choices=RATING_PRESETS)
    limit = serializers.IntegerField(min_value=1, max_value=500, required=False, default=100)


class RatingLeaderboardEntryOutputSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    user = serializers.IntegerField(source="user_id")
    username = serializers.CharField(source="user.username")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField(help_text="mu - 3 sigma: the sort key.")
    deals = serializers.IntegerField(help_text="Rated deals.")


class RatingLeaderboardOutputSerializer(serializers.Serializer):
    preset = serializers.CharField()
    entries = RatingLeaderboardEntryOutputSerializer(many=True)


class RatingChangeOutputSerializer(serializers.Serializer):
    game = serializers.IntegerField(source="game_id")
    mu_before = serializers.FloatField()
    sigma_before = serializers.FloatField()
    mu_after = serializers.FloatField()
    sigma_after = serializers.FloatField()
    result = serializers.IntegerField(help_text="1 won, 0 draw, -1 lost (the player's side).")
    created_at = serializers.DateTimeField()


class UserPresetRatingOutputSerializer(serializers.Serializer):
    preset = serializers.CharField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField()
    deals = serializers.IntegerField()
    history = RatingChangeOutputSerializer(
        many=True,
        help_text=(
            "Latest changes, newest first (at most 50); empty unless the viewer may read the player's "
            "games (the player, the owner of a bot account, staff)."
        ),
    )


class UserRatingsOutputSerializer(serializers.Serializer):
    user = serializers.IntegerField()
    ratings = UserPresetRatingOutputSerializer(many=True)


class RatingLeaderboardApi(APIView):
    @extend_schema(
        operation_id="rating_leaderboard",
        tags=["ratings"],
        parameters=[RatingLeaderboardQueryInputSerializer],
        responses={
            200: RatingLeaderboardOutputSerializer,
            **error_responses(ErrorCode.INVALID_REQUEST, ErrorCode.NOT_AUTHENTICATED),
        },
        examples=[
            OpenApiExample(
                "leaderboard",
                value={
                    "preset": "weihai",
                    "entries": [
                        {
                            "rank": 1,
                            "user": 7,
                            "username": "lihua",
                            "mu": 29.1,
                            "sigma": 4.2,
                            "ordinal": 16.5,
                            "deals": 40,
                        }
                    ],
                },
                response_only=True,
                status_codes=["200"],
            )
        ],
        description=(
            "Players of one preset by ordinal (mu - 3 sigma), best first. Ratings are openskill "
            'Plackett-Luce, updated after every rated deal (docs/matchmaking.md "Rated deals"): '
            "the emperor's side against the rest."
        ),
    )
    def get(self, request):
        query = RatingLeaderboardQueryInputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        rows = selectors.rating_leaderboard(**query.validated_data)
        for rank, row in enumerate(rows, start=1):
            row.rank = rank
        entries = RatingLeaderboardEntryOutputSerializer(rows, many=True).data
        return Response({"preset": query.validated_data["preset"], "entries": entries})


class UserRatingsApi(APIView):
    @extend_schema(
        operation_id="user_ratings",
        tags=["ratings"],
        parameters=[OpenApiParameter("user_id", OpenApiTypes.INT, OpenApiParameter.PATH)],
        responses={
            200: UserRatingsOutputSerializer,
            **error_responses(ErrorCode.NOT_AUTHENTICATED, ErrorCode.NOT_FOUND),
        },
        description=(
            "A player's rating in each preset he has played, with its history. The history names "
            "deals: it is listed to those who may read the player's games (`GET users/{id}/games`: "
            "the player, the owner of a bot account, staff) and empty for anyone else."
        ),
    )
    def get(self, request, user_id: int):
        ratings = selectors.user_ratings(user_id=user_id, viewer=request.user)
        return Response(
            {
                "user": user_id,
                "ratings": [
                    {
                        "preset": item["rating"].preset,
                        "mu": item["rating"].mu,
                        "sigma": item["rating"].sigma,
                        "ordinal": item["rating"].ordinal,
                        "deals": item["rating"].deals,
                        "history": RatingChangeOutputSerializer(item["history"], many=True).data,
                    }
                    for item in ratings
                ],
            }
        )
