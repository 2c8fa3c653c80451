"""`POST tables/{id}/invites` and `POST me/invitations/{id}/decline` (docs/notifications.md)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.throttles import UserScopedRateThrottle
from infra.api.errors import ErrorCode
from infra.api.schema import error_responses
from infra.api.serializers import StrictInputSerializer
from matchmaking import invitations


class InviteThrottle(UserScopedRateThrottle):
    """Invitations per user (INVITES_THROTTLE_RATE): each one buzzes somebody's phone."""

    scope = "invites"


class InviteInputSerializer(StrictInputSerializer):
    user = serializers.IntegerField(min_value=1, max_value=2**63 - 1, help_text="The player's id.")


class InvitationOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField(source="table_id")
    user = serializers.IntegerField(source="invitee_id")
    created_at = serializers.DateTimeField()
    declined = serializers.SerializerMethodField()

    def get_declined(self, invitation) -> bool:
        return invitation.declined_at is not None


class TableInvitesApi(APIView):
    throttle_classes = [InviteThrottle]

    @extend_schema(
        operation_id="table_invite",
        summary="Invite a player to your private table",
        tags=["tables"],
        parameters=[OpenApiParameter("table_id", OpenApiTypes.INT, OpenApiParameter.PATH)],
        request=InviteInputSerializer,
        responses={
            201: InvitationOutputSerializer,
            200: InvitationOutputSerializer,
            **error_responses(
                ErrorCode.INVALID_REQUEST,
                ErrorCode.NOT_AUTHENTICATED,
                ErrorCode.PERMISSION_DENIED,
                ErrorCode.NOT_FOUND,
                ErrorCode.TABLE_CLOSED,
                ErrorCode.THROTTLED,
            ),
        },
        description=(
            "The creator of a private table that waits for players invites one: his feed gets an "
            "`invited` entry with the table's code (pushed to his phone, kept in his inbox). 201 when new; "
            "200 with the same invitation when he was invited already (nothing is sent again); "
            "`403 permission_denied` if he declined it. INVITES_THROTTLE_RATE per user (default 30 an "
            "hour)."
        ),
    )
    def post(self, request, table_id: int):
        data = InviteInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        invitation, created = invitations.invitation_create(
            table_id=table_id, inviter=request.user, invitee_id=data.validated_data["user"]
        )
        return Response(
            InvitationOutputSerializer(invitation).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class InvitationDeclineApi(APIView):
    @extend_schema(
        operation_id="invitation_decline",
        summary="Decline an invitation",
        tags=["tables"],
        parameters=[OpenApiParameter("invitation_id", OpenApiTypes.INT, OpenApiParameter.PATH)],
        request=None,
        responses={204: None, **error_responses(ErrorCode.NOT_AUTHENTICATED, ErrorCode.NOT_FOUND)},
        description="The table's creator cannot invite you to that table again.",
    )
    def post(self, request, invitation_id: int):
        invitations.invitation_decline(invitation_id=invitation_id, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
