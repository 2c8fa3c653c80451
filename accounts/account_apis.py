"""A player's account over its life (docs/client-guide.md "Accounts"): `POST auth/upgrade`,
`POST me/password`, `GET me/export` (and `DELETE me`, on `me`'s view in accounts/apis.py)."""

from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import account_services, selectors, throttles
from accounts.apis import (
    AuthUserTokenOutputSerializer,
    RatingChangeOutputSerializer,
    SanctionOutputSerializer,
    UsernameField,
    UserOutputSerializer,
    device_field,
)
from accounts.models import TokenKind
from accounts.push import apis as push_apis
from accounts.scopes import Scope
from infra.api.compression import secret_answer
from infra.api.errors import ErrorCode
from infra.api.schema import error_responses
from infra.api.serializers import StrictInputSerializer

_PASSWORD = {"max_length": 128, "trim_whitespace": False}


class AuthUpgradeInputSerializer(StrictInputSerializer):
    username = UsernameField()
    password = serializers.CharField(**_PASSWORD)
    device = device_field()


class AuthUpgradeApi(APIView):
    # Like registration, which it stands for: per address, with register, token and guest.
    throttle_classes = [throttles.AuthAddressThrottle]

    @extend_schema(
        operation_id="auth_upgrade",
        summary="Make this guest a registered player",
        tags=["auth"],
        request=AuthUpgradeInputSerializer,
        responses={
            200: AuthUserTokenOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.PERMISSION_DENIED,
                ErrorCode.THROTTLED,
            ),
        },
        examples=[
            OpenApiExample(
                "upgrade",
                value={"username": "lihua", "password": "s3cret-pass", "device": "Li Hua's phone"},
                request_only=True,
            ),
        ],
        description=(
            "Makes the guest of this login token a registered player in place: the same user id, so "
            "his games, ratings, seats, tickets, feed and personal tokens stay his. The name obeys the "
            "rules of `POST auth/register`. The guest token stops working; the answer's `token` "
            "replaces it (with the same `device` name unless one is given). A registered account "
            "gets `400 invalid_request`; a personal access token or an OAuth token "
            "`403 permission_denied`."
        ),
    )
    def post(self, request):
        data = AuthUpgradeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user, key = account_services.account_upgrade(
            user=request.user, credential=request.auth, **data.validated_data
        )
        return secret_answer(Response({"user": UserOutputSerializer(user).data, "token": key}))


class MePasswordInputSerializer(StrictInputSerializer):
    old_password = serializers.CharField(**_PASSWORD)
    new_password = serializers.CharField(**_PASSWORD)


class MePasswordOutputSerializer(serializers.Serializer):
    sessions_revoked = serializers.IntegerField(help_text="Login tokens of your other devices revoked.")


class MePasswordApi(APIView):
    # It checks a password: limited per address like the sign-in, and under the account's lock-out.
    throttle_classes = [throttles.AuthAddressThrottle]

    @extend_schema(
        operation_id="me_password",
        summary="Change the password",
        tags=["me"],
        request=MePasswordInputSerializer,
        responses={
            200: MePasswordOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.PERMISSION_DENIED,
                ErrorCode.THROTTLED,
            ),
        },
        examples=[
            OpenApiExample(
                "change",
                value={"old_password": "s3cret-pass", "new_password": "n3w-s3cret"},
                request_only=True,
            ),
            OpenApiExample(
                "changed", value={"sessions_revoked": 2}, response_only=True, status_codes=["200"]
            ),
        ],
        description=(
            "Changes the password. A wrong `old_password` is `400 invalid_request` "
            "(`extra.fields.old_password`) and counts toward the account's sign-in lock-out (`429 "
            "throttled` once locked, the right password included); a weak `new_password` is refused "
            "by the password rules. The login tokens of your other devices stop working; this one "
            "stays. Personal access tokens and OAuth apps' tokens stay (`auth/logout-all` ends "
            "them all). A login token only (`403 permission_denied` otherwise); a guest has no "
            "password (`POST auth/upgrade`)."
        ),
    )
    def post(self, request):
        data = MePasswordInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        revoked = account_services.password_change(
            user=request.user, credential=request.auth, **data.validated_data
        )
        return Response({"sessions_revoked": revoked})


class ExportProfileOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    email = serializers.CharField(allow_blank=True)
    is_guest = serializers.BooleanField()
    is_staff = serializers.BooleanField()
    is_bot = serializers.BooleanField()
    date_joined = serializers.DateTimeField()
    last_login = serializers.DateTimeField(allow_null=True, help_text="Last password sign-in.")


class ExportRatingOutputSerializer(serializers.Serializer):
    preset = serializers.CharField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField()
    deals = serializers.IntegerField()
    updated_at = serializers.DateTimeField()


class ExportRatingChangeOutputSerializer(RatingChangeOutputSerializer):
    preset = serializers.CharField()


class ExportTokenOutputSerializer(serializers.Serializer):
    """A token's metadata: never its secret nor its hash."""

    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=TokenKind.choices)
    device = serializers.CharField(allow_blank=True)
    name = serializers.CharField(allow_blank=True)
    prefix = serializers.CharField(allow_blank=True)
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=Scope.choices),
        allow_null=True,
        help_text="null: a login token, every scope the user may have.",
    )
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField()
    revoked_at = serializers.DateTimeField(allow_null=True)


class ExportWebhookOutputSerializer(serializers.Serializer):
    """A webhook without its signing secret."""

    id = serializers.IntegerField()
    url = serializers.CharField()
    events = serializers.ListField(child=serializers.CharField())
    active = serializers.BooleanField()
    created_at = serializers.DateTimeField()


class ExportGameOutputSerializer(serializers.Serializer):
    """One deal the user played (the rows of `GET users/{id}/games`)."""

    game = serializers.IntegerField()
    table = serializers.IntegerField()
    number = serializers.IntegerField()
    preset = serializers.CharField()
    seat = serializers.IntegerField(min_value=0, max_value=4)
    status = serializers.CharField()
    unscored = serializers.BooleanField()
    role = serializers.CharField(allow_null=True)
    score = serializers.IntegerField(allow_null=True)
    rated = serializers.BooleanField()
    played_by_bot = serializers.BooleanField()
    bots = serializers.ListField(child=serializers.BooleanField(), min_length=5, max_length=5)
    with_bots = serializers.BooleanField()
    left = serializers.BooleanField()
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class ExportPenaltyOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField(source="table_id")
    game = serializers.IntegerField(source="game_id", allow_null=True)
    seat = serializers.IntegerField()
    points = serializers.IntegerField()
    reason = serializers.CharField()
    served_in = serializers.IntegerField(source="served_in_id", allow_null=True)
    created_at = serializers.DateTimeField()


class ExportReportOutputSerializer(serializers.Serializer):
    """A report the user filed (its moderator's note is staff's, not his)."""

    id = serializers.IntegerField()
    user = serializers.IntegerField(source="user_id", help_text="The player reported.")
    game = serializers.IntegerField(source="game_id", allow_null=True)
    reason = serializers.CharField()
    text = serializers.CharField(allow_blank=True)
    status = serializers.CharField()
    created_at = serializers.DateTimeField()
    handled_at = serializers.DateTimeField(allow_null=True)


class ExportTicketOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    preset = serializers.CharField()
    options = serializers.DictField()
    rated = serializers.BooleanField()
    bots = serializers.BooleanField()
    party = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    table = serializers.IntegerField(source="table_id", allow_null=True)
    game = serializers.IntegerField(source="game_id", allow_null=True)
    seat = serializers.IntegerField(allow_null=True)


class ExportTournamentEntryOutputSerializer(serializers.Serializer):
    """An entry in a tournament (docs/tournaments.md); its shape is described here, as the others'."""

    tournament = serializers.IntegerField(source="tournament_id")
    joined_at = serializers.DateTimeField()
    withdrawn_at = serializers.DateTimeField(allow_null=True)
    sent_off = serializers.BooleanField()
    rank = serializers.IntegerField(allow_null=True)
    matchpoints = serializers.IntegerField()
    score = serializers.IntegerField()


class MeExportOutputSerializer(serializers.Serializer):
    exported_at = serializers.DateTimeField()
    profile = ExportProfileOutputSerializer()
    ratings = ExportRatingOutputSerializer(many=True)
    rating_changes = ExportRatingChangeOutputSerializer(many=True, help_text="Oldest first.")
    sanctions = SanctionOutputSerializer(many=True, help_text="Every sanction, revoked and expired ones too.")
    tokens = ExportTokenOutputSerializer(many=True, help_text="Every token, revoked and expired ones too.")
    webhooks = ExportWebhookOutputSerializer(many=True)
    games = ExportGameOutputSerializer(many=True, help_text="Every deal you played, private tables' too.")
    penalties = ExportPenaltyOutputSerializer(many=True)
    reports_filed = ExportReportOutputSerializer(many=True)
    tickets = ExportTicketOutputSerializer(many=True)
    devices = push_apis.DeviceOutputSerializer(many=True, help_text="Push devices, never their tokens.")
    notifications = push_apis.ExportNotificationsOutputSerializer()
    inbox = push_apis.InboxItemOutputSerializer(many=True, help_text="Oldest first.")
    tournaments = ExportTournamentEntryOutputSerializer(many=True, help_text="Your tournament entries.")


class MeExportApi(APIView):
    # The right to one's data does not end with a ban.
    allowed_while_banned = True

    @extend_schema(
        operation_id="me_export",
        summary="Export my data",
        tags=["me"],
        responses={
            200: MeExportOutputSerializer,
            **error_responses(ErrorCode.NOT_AUTHENTICATED, banned=False),
        },
        description=(
            "Everything the server keeps about you, as one JSON document: profile, ratings and "
            "their changes, sanctions, tokens (metadata only), webhooks (without secrets), every "
            "deal you played (private tables included), penalties, the reports you filed, tickets, "
            "tournament entries. "
            "Needs the `tokens` scope. Allowed while banned."
        ),
    )
    def get(self, request):
        export = selectors.account_export(user=request.user)
        return Response(MeExportOutputSerializer({"exported_at": timezone.now(), **export}).data)
