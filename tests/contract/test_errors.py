"""One error shape in every mode (docs/client-guide.md §7): JSON under /api/ whatever DEBUG says, field
errors under
`extra.fields`, and bodies with keys that do not belong refused with nothing changed."""

import json

import pytest

from tests.api.playing import get_view, prompted_seats
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("path", ["/api/v1/games/abc", "/api/v1/games", "/api/v2/", "/api/nothing"])
def test_unknown_urls_under_api_answer_the_error_shape(client, settings, debug, path):
    settings.DEBUG = debug
    body = assert_error(client.get(path), 404, "not_found")
    assert body["message"] == "Not found."


@pytest.mark.parametrize("debug", [False, True])
def test_an_oversize_body_is_a_json_400_naming_the_limit(client, settings, debug):
    settings.DEBUG = debug
    big = json.dumps({"username": "x" * (3 * 1024 * 1024), "password": "y"})
    response = client.post("/api/v1/auth/register", big, content_type="application/json")
    body = assert_error(response, 400, "invalid_request")
    assert body["extra"] == {"max_bytes": settings.API_MAX_BODY_BYTES}


def test_a_body_just_under_the_limit_reaches_the_view(client, settings):
    settings.API_MAX_BODY_BYTES = 200
    response = client.post(
        "/api/v1/auth/register", {"username": "lihua", "password": "123"}, content_type="application/json"
    )
    assert response.status_code == 400 and "max_bytes" not in response.json()["extra"]


def test_register_field_errors_come_under_extra_fields(client):
    response = client.post(
        "/api/v1/auth/register", {"username": "lihua", "password": "123"}, content_type="application/json"
    )
    body = assert_error(response, 400, "invalid_request")
    assert set(body["extra"]) == {"fields"} and body["extra"]["fields"]["password"]


@pytest.mark.parametrize(
    "path, payload",
    [
        ("/api/v1/auth/guest", {"nickname": "x"}),
        ("/api/v1/auth/register", {"username": "lihua", "password": "correct-horse-9", "nickname": "x"}),
    ],
)
def test_unknown_fields_are_field_errors(client, path, payload):
    response = client.post(path, payload, content_type="application/json")
    body = assert_error(response, 400, "invalid_request")
    assert body["extra"] == {"fields": {"nickname": ["Unknown field."]}}


def test_duplicate_json_keys_are_refused(client):
    raw = '{"username": "lihua", "username": "other", "password": "correct-horse-9"}'
    response = client.post("/api/v1/auth/register", raw, content_type="application/json")
    body = assert_error(response, 400, "invalid_request")
    assert "duplicate key 'username'" in body["message"]
    # Nothing was created by the refused body.
    assert (
        client.post(
            "/api/v1/auth/token",
            {"username": "lihua", "password": "correct-horse-9"},
            content_type="application/json",
        ).status_code
        != 200
    )


def _prompted(setup):
    view = get_view(setup["clients"][0], setup["game"])
    for seat in prompted_seats(view):
        seat_view = get_view(setup["clients"][seat], setup["game"])
        if seat_view.get("legal_actions"):
            return seat, seat_view
    raise AssertionError("nobody is prompted")


@pytest.mark.parametrize(
    "payload, field",
    [
        ({"type": "pass", "card": "BJ"}, "card"),
        ({"type": "accept", "cards": ["BJ"]}, "cards"),
        ({"type": "decline", "card": "SJ"}, "card"),
        ({"type": "call", "cards": ["SJ"], "card": "SJ"}, "cards"),
    ],
)
def test_fields_that_do_not_belong_to_the_action_type_are_refused(make_table, payload, field):
    setup = make_table()
    seat, before = _prompted(setup)
    response = setup["clients"][seat].post(f"/api/v1/games/{setup['game']}/actions", payload, format="json")
    body = assert_error(response, 400, "invalid_request")
    assert list(body["extra"]["fields"]) == [field]
    assert get_view(setup["clients"][seat], setup["game"])["version"] == before["version"]


def test_a_legal_action_sent_back_as_listed_is_accepted(make_table):
    setup = make_table()
    seat, before = _prompted(setup)
    action = before["legal_actions"][0]
    assert set(action) == {"type", "cards", "card"}
    response = setup["clients"][seat].post(f"/api/v1/games/{setup['game']}/actions", action, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["version"] == before["version"] + 1
