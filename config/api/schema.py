"""OpenAPI pieces shared by every endpoint: the error body and its documented responses."""

from drf_spectacular.utils import OpenApiExample, OpenApiResponse
from rest_framework import serializers

from config.api.errors import ErrorCode, status_for_code


class ErrorSerializer(serializers.Serializer):
    code = serializers.ChoiceField(choices=ErrorCode.choices)
    message = serializers.CharField()
    extra = serializers.DictField(help_text="Details; `stale_version` carries `version`.")


_MESSAGES = {
    ErrorCode.INVALID_REQUEST: "The request is malformed.",
    ErrorCode.NOT_AUTHENTICATED: "Authentication credentials were not provided.",
    ErrorCode.PERMISSION_DENIED: "You do not have permission to perform this action.",
    ErrorCode.NOT_FOUND: "Not found.",
    ErrorCode.THROTTLED: "Request was throttled.",
}


def error_responses(*codes: str) -> dict[int, OpenApiResponse]:
    """The documented error responses of an endpoint: one entry per status, one example per code.

    Every endpoint can also answer 400/401/403 for malformed input, a missing token or a ban, so
    those are added where the caller did not list them.
    """
    by_status: dict[int, list[str]] = {}
    for code in codes:
        by_status.setdefault(status_for_code(code), []).append(code)
    responses = {}
    for status_code, status_codes in sorted(by_status.items()):
        examples = []
        for code in status_codes:
            extra = {"version": 7} if code == ErrorCode.STALE_VERSION else {}
            examples.append(
                OpenApiExample(
                    code,
                    value={
                        "code": code,
                        "message": _MESSAGES.get(code, code.replace("_", " ")),
                        "extra": extra,
                    },
                    response_only=True,
                    status_codes=[str(status_code)],
                )
            )
        responses[status_code] = OpenApiResponse(
            ErrorSerializer, description=", ".join(status_codes), examples=examples
        )
    return responses
