"""The one error type of the API and its codes (docs/client-guide.md §3)."""

from django.db import models
from rest_framework import status


class ErrorCode(models.TextChoices):
    INVALID_REQUEST = "invalid_request"
    NOT_AUTHENTICATED = "not_authenticated"
    PERMISSION_DENIED = "permission_denied"
    BANNED = "banned"
    MISSING_SCOPE = "missing_scope"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NOT_ACCEPTABLE = "not_acceptable"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"
    STALE_VERSION = "stale_version"
    GAME_OVER = "game_over"
    GAME_NOT_OVER = "game_not_over"
    SEAT_TAKEN = "seat_taken"
    TABLE_FULL = "table_full"
    TABLE_CLOSED = "table_closed"
    TRUSTEE_LOCKED = "trustee_locked"
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"
    NOT_A_PLAY = "not_a_play"
    DOES_NOT_BEAT = "does_not_beat"
    MUST_PLAY_LAST = "must_play_last"
    CANNOT_PASS_LEAD = "cannot_pass_lead"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    NOT_ALLOWED = "not_allowed"
    BAD_CALL = "bad_call"
    THROTTLED = "throttled"
    SERVER_ERROR = "server_error"
    TICKET_EXISTS = "ticket_exists"
    TICKET_MATCHED = "ticket_matched"
    TOO_MANY_OPEN_TABLES = "too_many_open_tables"
    TOO_MANY_TOKENS = "too_many_tokens"
    SERVICE_UNAVAILABLE = "service_unavailable"
    FEED_CURSOR_AHEAD = "feed_cursor_ahead"
    FEED_CURSOR_EXPIRED = "feed_cursor_expired"
    UPGRADE_REQUIRED = "upgrade_required"
    TOURNAMENT_STARTED = "tournament_started"
    TOURNAMENT_FULL = "tournament_full"
    TOURNAMENT_CLOSED = "tournament_closed"


# The HTTP status of every code; an engine code not listed here is a rule violation (422).
STATUS_OF_CODE: dict[str, int] = {
    ErrorCode.INVALID_REQUEST: status.HTTP_400_BAD_REQUEST,
    ErrorCode.NOT_AUTHENTICATED: status.HTTP_401_UNAUTHORIZED,
    ErrorCode.PERMISSION_DENIED: status.HTTP_403_FORBIDDEN,
    ErrorCode.BANNED: status.HTTP_403_FORBIDDEN,
    ErrorCode.MISSING_SCOPE: status.HTTP_403_FORBIDDEN,
    ErrorCode.NOT_FOUND: status.HTTP_404_NOT_FOUND,
    ErrorCode.METHOD_NOT_ALLOWED: status.HTTP_405_METHOD_NOT_ALLOWED,
    ErrorCode.NOT_ACCEPTABLE: status.HTTP_406_NOT_ACCEPTABLE,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
    ErrorCode.NOT_YOUR_TURN: status.HTTP_409_CONFLICT,
    ErrorCode.WRONG_PHASE: status.HTTP_409_CONFLICT,
    ErrorCode.STALE_VERSION: status.HTTP_409_CONFLICT,
    ErrorCode.GAME_OVER: status.HTTP_409_CONFLICT,
    ErrorCode.GAME_NOT_OVER: status.HTTP_409_CONFLICT,
    ErrorCode.SEAT_TAKEN: status.HTTP_409_CONFLICT,
    ErrorCode.TABLE_FULL: status.HTTP_409_CONFLICT,
    ErrorCode.TABLE_CLOSED: status.HTTP_409_CONFLICT,
    ErrorCode.TRUSTEE_LOCKED: status.HTTP_409_CONFLICT,
    ErrorCode.IDEMPOTENCY_KEY_REUSED: status.HTTP_409_CONFLICT,
    ErrorCode.NOT_A_PLAY: status.HTTP_422_UNPROCESSABLE_ENTITY,
    ErrorCode.DOES_NOT_BEAT: status.HTTP_422_UNPROCESSABLE_ENTITY,
    ErrorCode.MUST_PLAY_LAST: status.HTTP_422_UNPROCESSABLE_ENTITY,
    ErrorCode.CANNOT_PASS_LEAD: status.HTTP_422_UNPROCESSABLE_ENTITY,
    ErrorCode.CARD_NOT_IN_HAND: status.HTTP_422_UNPROCESSABLE_ENTITY,
    ErrorCode.NOT_ALLOWED: status.HTTP_422_UNPROCESSABLE_ENTITY,
    ErrorCode.BAD_CALL: status.HTTP_422_UNPROCESSABLE_ENTITY,
    ErrorCode.THROTTLED: status.HTTP_429_TOO_MANY_REQUESTS,
    ErrorCode.SERVER_ERROR: status.HTTP_500_INTERNAL_SERVER_ERROR,
    ErrorCode.TICKET_EXISTS: status.HTTP_409_CONFLICT,
    ErrorCode.TICKET_MATCHED: status.HTTP_409_CONFLICT,
    ErrorCode.TOO_MANY_OPEN_TABLES: status.HTTP_409_CONFLICT,
    ErrorCode.TOO_MANY_TOKENS: status.HTTP_409_CONFLICT,
    ErrorCode.SERVICE_UNAVAILABLE: status.HTTP_503_SERVICE_UNAVAILABLE,
    ErrorCode.FEED_CURSOR_AHEAD: status.HTTP_409_CONFLICT,
    ErrorCode.FEED_CURSOR_EXPIRED: status.HTTP_410_GONE,
    ErrorCode.UPGRADE_REQUIRED: status.HTTP_426_UPGRADE_REQUIRED,
    ErrorCode.TOURNAMENT_STARTED: status.HTTP_409_CONFLICT,
    ErrorCode.TOURNAMENT_FULL: status.HTTP_409_CONFLICT,
    ErrorCode.TOURNAMENT_CLOSED: status.HTTP_409_CONFLICT,
}


def status_for_code(code: str) -> int:
    return STATUS_OF_CODE.get(code, status.HTTP_422_UNPROCESSABLE_ENTITY)


class ApiError(Exception):
    """Raised by services and selectors; the exception handler turns it into the error body."""

    def __init__(
        self, code: str, message: str = "", *, extra: dict | None = None, status_code: int | None = None
    ):
        super().__init__(message or str(code))
        self.code = str(code)
        self.message = message or str(code).replace("_", " ")
        self.extra = extra or {}
        self.status_code = status_code or status_for_code(self.code)

    def body(self) -> dict:
        return {"code": self.code, "message": self.message, "extra": self.extra}
