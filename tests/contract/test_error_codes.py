"""Every error answer of every endpoint is the one `Error` component, and lists in `x-error-codes` (and
one example each) the codes that endpoint answers with that status."""

import pytest

# The codes each endpoint answers by its contract (beyond not_authenticated, which most list).
EXPECTED = {
    "game_action": {
        400: {"invalid_request"},
        404: {"not_found"},
        409: {"not_your_turn", "wrong_phase", "stale_version", "game_over", "idempotency_key_reused"},
        422: {
            "not_a_play",
            "does_not_beat",
            "must_play_last",
            "cannot_pass_lead",
            "card_not_in_hand",
            "not_allowed",
            "bad_call",
        },
    },
    "game_final": {409: {"game_not_over"}, 404: {"not_found"}},
    "game_trustee": {409: {"game_over", "trustee_locked"}},
    "game_events": {400: {"invalid_request"}, 429: {"throttled"}},
    "me_events": {409: {"feed_cursor_ahead"}, 410: {"feed_cursor_expired"}, 429: {"throttled"}},
    "table_events": {429: {"throttled"}},
    "ticket_detail": {429: {"throttled"}},
    "table_create": {409: {"too_many_open_tables"}, 429: {"throttled"}},
    "auth_tokens_create": {409: {"too_many_tokens"}},
    "table_join": {409: {"seat_taken", "table_full", "table_closed"}},
    "ticket_create": {409: {"ticket_exists"}, 400: {"invalid_request"}},
    "ticket_cancel": {409: {"ticket_matched"}, 404: {"not_found"}},
    "auth_register": {400: {"invalid_request"}, 429: {"throttled"}},
    "auth_guest": {429: {"throttled"}},
    "game_detail": {401: {"not_authenticated"}, 403: {"permission_denied", "banned"}, 404: {"not_found"}},
}


def _operations(schema: dict) -> dict[str, dict]:
    return {op["operationId"]: op for path in schema["paths"].values() for op in path.values()}


@pytest.fixture(scope="module")
def operations(django_db_blocker):
    from rest_framework.test import APIClient

    with django_db_blocker.unblock():
        return _operations(APIClient().get("/api/schema/?format=json").json())


@pytest.mark.parametrize("operation_id", sorted(EXPECTED))
def test_documented_error_codes_are_enums_of_their_endpoint(operations, operation_id):
    responses = operations[operation_id]["responses"]
    for status, codes in EXPECTED[operation_id].items():
        response = responses[str(status)]
        assert codes <= set(response["x-error-codes"]), (operation_id, status)
        assert response["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}


def test_every_error_response_of_every_endpoint_limits_its_codes_to_its_status(operations):
    from infra.api.errors import status_for_code

    checked = 0
    for operation_id, operation in operations.items():
        for status, response in operation["responses"].items():
            if int(status) < 400:
                continue
            listed = response["x-error-codes"]
            assert listed, (operation_id, status)
            assert all(status_for_code(code) == int(status) for code in listed), (operation_id, status)
            checked += 1
    assert checked > 50
