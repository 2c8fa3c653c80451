"""OpenAPI pieces shared by every endpoint: the error body and its documented responses."""

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema_field
from rest_framework import serializers

from infra.api.errors import ErrorCode, status_for_code

# The two query parameters of every log a client follows by long-poll (infra/api/serializers.py
# LongPollQueryInputSerializer refuses negatives).
LONG_POLL_PARAMETERS = [
    OpenApiParameter(
        "after",
        {"type": "integer", "minimum": 0},
        description="Entries with a larger seq (default 0).",
    ),
    OpenApiParameter(
        "wait",
        {"type": "number", "minimum": 0},
        description="Seconds to wait when there are none yet; clamped to 30.",
    ),
]

# A stream that reconnects names the last entry it got (events/app.py); it stands for `after`.
LAST_EVENT_ID_PARAMETER = OpenApiParameter(
    "Last-Event-ID",
    {"type": "string", "pattern": "^[0-9]{1,18}$"},
    OpenApiParameter.HEADER,
    description="With `Accept: text/event-stream`: the `id` of the last event received; replaces `after`.",
)


# The event server's per-user caps (events/caps.py), said in the description of each followed log.
LONG_POLL_CAP = (
    " A user has at most EVENTS_MAX_LONG_POLLS_PER_USER (default 16) long-polls waiting at once on "
    "an event-server process; one more is `429 throttled` with Retry-After."
)
STREAM_CAP = (
    " He holds at most EVENTS_MAX_STREAMS_PER_USER (default 8) streams there, across all his "
    "tokens: a newer one ends his oldest, which first sends `retry: 30000`."
)


def event_stream(item_component: str) -> dict:
    """The stream form of a followed log (`Accept: text/event-stream`, events/streams.py), as the
    operation's `x-event-stream` extension. Not a second media type of the 200: a generated client
    would type that body `object | string` and lose the JSON answer's type. The shape follows
    OpenAPI 3.2's `itemSchema`: each event's `data` is one `item_component`, its `id` the seq."""
    return {
        "x-event-stream": {
            "mediaType": "text/event-stream",
            "requestHeader": "Accept: text/event-stream",
            "itemSchema": {"$ref": f"#/components/schemas/{item_component}"},
            "fields": {"id": "seq", "event": "type", "data": f"one {item_component} as JSON"},
        }
    }


_MESSAGES = {
    ErrorCode.INVALID_REQUEST: "The request is malformed.",
    ErrorCode.NOT_AUTHENTICATED: "Authentication credentials were not provided.",
    ErrorCode.PERMISSION_DENIED: "You do not have permission to perform this action.",
    ErrorCode.NOT_FOUND: "Not found.",
    ErrorCode.THROTTLED: "Request was throttled.",
    ErrorCode.TOO_MANY_OPEN_TABLES: "You have too many tables still waiting for players.",
    ErrorCode.TOO_MANY_TOKENS: "You have too many personal access tokens: revoke one first.",
    ErrorCode.UPGRADE_REQUIRED: "This app is too old: update it to 2.4.0 or later.",
}

_EXTRAS = {
    ErrorCode.STALE_VERSION: {"version": 7},
    ErrorCode.BANNED: {"expires_at": "2026-12-24T00:00:00Z", "kind": "ban"},
    ErrorCode.THROTTLED: {"retry_after": 60},
    ErrorCode.MISSING_SCOPE: {"scope": "play"},
    ErrorCode.SERVICE_UNAVAILABLE: {"retry_after": 1},
    ErrorCode.FEED_CURSOR_AHEAD: {"last_seq": 57},
    ErrorCode.FEED_CURSOR_EXPIRED: {"last_seq": 957},
    ErrorCode.TOO_MANY_OPEN_TABLES: {"limit": 3},
    ErrorCode.TOO_MANY_TOKENS: {"limit": 20},
    ErrorCode.UPGRADE_REQUIRED: {
        "minimum_version": "2.4.0",
        "upgrade_url": "https://example.invalid/update-the-app",
    },
}


# The one error body, one component referenced by every error answer of every operation: a generated
# client has one type to catch, whatever the operation (docs/client-guide.md §7). `code` is open: the
# codes known now, or any other string, since a minor version may add codes (docs/changelog.md); each
# answer lists the codes its operation gives in `x-error-codes` and in its examples.
ERROR_COMPONENTS = {
    "Error": {
        "type": "object",
        "description": "The one error body. Switch on `code`; a code you do not know is a new one: "
        "treat it by its HTTP status.",
        "properties": {
            "code": {
                "anyOf": [{"$ref": "#/components/schemas/ErrorCode"}, {"type": "string"}],
                "description": "What went wrong, for programs. Open to new values in a minor version.",
            },
            "message": {"type": "string", "description": "For people; may change."},
            "extra": {"$ref": "#/components/schemas/ErrorExtra"},
        },
        "required": ["code", "message", "extra"],
    },
    "ErrorCode": {
        "type": "string",
        "enum": list(ErrorCode.values),
        "description": "The codes known in this version (docs/client-guide.md §7).",
    },
    "ErrorExtra": {
        "type": "object",
        "description": "Details, per code; other keys may come with new codes.",
        "properties": {
            "fields": {
                "type": "object",
                "additionalProperties": {"type": "array", "items": {}},
                "description": "`invalid_request`: the refused fields, `{name: [messages]}`.",
            },
            "max_bytes": {"type": "integer", "description": "`invalid_request`: a body over this size."},
            "max_depth": {"type": "integer", "description": "`invalid_request`: a body nested deeper."},
            "version": {"type": "integer", "description": "`stale_version`: the game's version now."},
            "kind": {"type": "string", "description": "`banned`: the sanction's kind."},
            "expires_at": {
                "type": ["string", "null"],
                "format": "date-time",
                "description": "`banned`: when the ban ends (null: never).",
            },
            "scope": {"type": "string", "description": "`missing_scope`: the scope the endpoint needs."},
            "retry_after": {
                "type": "integer",
                "description": "`throttled`, `service_unavailable`: seconds to wait (as `Retry-After`).",
            },
            "last_seq": {
                "type": "integer",
                "description": "`feed_cursor_ahead`, `feed_cursor_expired`: the feed's last entry.",
            },
            "limit": {
                "type": "integer",
                "description": "`too_many_open_tables`, `too_many_tokens`: the cap you reached.",
            },
            "minimum_version": {
                "type": "string",
                "description": "`upgrade_required`: the oldest app version served.",
            },
            "upgrade_url": {"type": "string", "description": "`upgrade_required`: where to update the app."},
        },
        "additionalProperties": True,
    },
}
ERROR_REF = {"$ref": "#/components/schemas/Error"}


def error_responses(*codes: str, banned: bool = True, scoped: bool = True) -> dict[int, OpenApiResponse]:
    """The documented error responses of an endpoint: one entry per status, one example per code.

    An endpoint that needs a signed-in user (it lists `not_authenticated`) also answers `403 banned`
    to a banned one (accounts/permissions.py), unless it is one of those a ban leaves open
    (`banned=False`), and `403 missing_scope` to a token without the endpoint's scope, unless it takes
    no token at all (`scoped=False`: `auth/token` signs in with a password, `not_authenticated` there
    is a wrong one). Every endpoint may answer `503 service_unavailable`.
    """
    if banned and ErrorCode.NOT_AUTHENTICATED in codes and ErrorCode.BANNED not in codes:
        codes = (*codes, ErrorCode.BANNED)
    # A token without the endpoint's scope (infra/api/endpoint_scopes.py) is refused the same way.
    if scoped and ErrorCode.NOT_AUTHENTICATED in codes and ErrorCode.MISSING_SCOPE not in codes:
        codes = (*codes, ErrorCode.MISSING_SCOPE)
    # Any request may find the database unreachable or every connection busy (infra/api/busy.py).
    if ErrorCode.SERVICE_UNAVAILABLE not in codes:
        codes = (*codes, ErrorCode.SERVICE_UNAVAILABLE)
    # Any request of an app below the operator's minimum version (infra/api/client_version.py).
    if ErrorCode.UPGRADE_REQUIRED not in codes:
        codes = (*codes, ErrorCode.UPGRADE_REQUIRED)
    by_status: dict[int, list[str]] = {}
    for code in codes:
        by_status.setdefault(status_for_code(code), []).append(code)
    responses = {}
    for status_code, status_codes in sorted(by_status.items()):
        examples = []
        for code in status_codes:
            extra = _EXTRAS.get(code, {})
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
            ERROR_REF, description=", ".join(f"`{code}`" for code in status_codes), examples=examples
        )
    return responses


def type_field(value: str) -> serializers.Field:
    """An event's `type`, declared as the one string it is (a single-value enum): the member of a
    union discriminated on `type` that a generated client decodes."""

    @extend_schema_field({"type": "string", "enum": [value]})
    class EventTypeField(serializers.CharField):
        pass

    return EventTypeField()


class ApiAutoSchema(AutoSchema):
    """Component names without the serializers' `Input`/`Output` (`TableCreateInputSerializer` ->
    `TableCreateRequest`, `TableDetailOutputSerializer` -> `TableDetail`): that suffix says which way
    a serializer reads in this code, which COMPONENT_SPLIT_REQUEST's `Request` says to a client. Two
    serializers left with one name would be a generation warning, which scripts/schema refuses."""

    def get_serializer_name(self, serializer, direction):
        # The documented override point: drf-spectacular strips a `Serializer` suffix after it.
        name = super().get_serializer_name(serializer, direction)
        for suffix in ("InputSerializer", "OutputSerializer"):
            if name.endswith(suffix) and len(name) > len(suffix):
                return name.removesuffix(suffix)
        return name
