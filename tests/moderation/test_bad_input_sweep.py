"""What an attacker tried on the live service (issue 10): every answer must be a 4xx in the one error
shape, limits must hold, and nothing may change."""

import pytest

from accounts.models import AuthToken, ModerationAction, Sanction, User
from games.models import Event, Game
from matchmaking.models import Report, Table
from tests.conftest import assert_error
from tests.moderation.helpers import make_moderator

pytestmark = pytest.mark.django_db

DEPTHS = [10, 33, 100, 1_000, 2_000, 3_000, 10_000, 100_000]


def _snapshot() -> dict:
    return {
        model.__name__: model.objects.count()
        for model in (User, AuthToken, Table, Game, Event, Report, Sanction, ModerationAction)
    }


def _deep(depth: int, key: str) -> str:
    return '{"' + key + '": ' + "[" * depth + "]" * depth + "}"


def _assert_4xx_error_shape(response) -> dict:
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:300])
    body = response.json()
    assert set(body) == {"code", "message", "extra"} and isinstance(body["extra"], dict), body
    return body


def test_nested_and_oversized_bodies_get_400_everywhere_and_change_nothing(
    make_table, make_user, make_client, settings
):
    setup = make_table()
    _, moderator = make_moderator(make_user, make_client)
    player = setup["clients"][0]
    anonymous = make_client()
    targets = [
        (anonymous, "/api/v1/auth/register", "username"),
        (anonymous, "/api/v1/auth/token", "username"),
        (player, "/api/v1/tables", "options"),
        (player, f"/api/v1/tables/{setup['table']}/join", "code"),
        (player, f"/api/v1/games/{setup['game']}/actions", "cards"),
        (player, f"/api/v1/games/{setup['game']}/trustee", "on"),
        (player, "/api/v1/reports", "text"),
        (moderator, "/api/v1/moderation/sanctions", "reason"),
        (moderator, f"/api/v1/moderation/games/{setup['game']}/abort", "reason"),
    ]
    before = _snapshot()
    for client, url, key in targets:
        for depth in DEPTHS:
            response = client.post(url, _deep(depth, key), content_type="application/json")
            body = _assert_4xx_error_shape(response)
            assert response.status_code == 400 and body["code"] == "invalid_request", (url, depth, body)
            if depth > settings.API_MAX_JSON_DEPTH and len(_deep(depth, key)) <= settings.API_MAX_BODY_BYTES:
                assert body["extra"] == {"max_depth": settings.API_MAX_JSON_DEPTH}, (url, depth)
        oversized = '{"' + key + '": "' + "x" * (settings.API_MAX_BODY_BYTES + 10) + '"}'
        body = assert_error(
            client.post(url, oversized, content_type="application/json"), 400, "invalid_request"
        )
        assert body["extra"] == {"max_bytes": settings.API_MAX_BODY_BYTES}
    assert _snapshot() == before


def test_the_6kb_probe_of_the_live_service_is_a_400():
    from rest_framework.test import APIClient

    body = '{"username": ' + "[" * 3000 + "]" * 3000 + "}"
    assert len(body) < 6100
    response = APIClient().post("/api/v1/auth/register", body, content_type="application/json")
    assert_error(response, 400, "invalid_request")


def test_forged_addresses_and_fifty_wrong_passwords_change_nothing(make_user, make_client, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "auth": "20/min"},
    }
    user, _ = make_user(username="target")
    password_hash = user.password
    before = _snapshot()
    codes = []
    for attempt in range(50):
        response = make_client().post(
            "/api/v1/auth/token",
            {"username": "target", "password": f"wrong-{attempt}"},
            format="json",
            REMOTE_ADDR=f"198.51.100.{attempt % 5}",
            HTTP_X_FORWARDED_FOR=f"10.9.{attempt}.{attempt}",
        )
        body = _assert_4xx_error_shape(response)
        codes.append(body["code"])
    assert codes[:10] == ["not_authenticated"] * 10
    assert set(codes[10:]) == {"throttled"}
    # The per-address limit holds too: one address, forged headers, 25 tries.
    address_codes = [
        make_client()
        .post("/api/v1/auth/guest", REMOTE_ADDR="192.0.2.50", HTTP_X_FORWARDED_FOR=f"10.{n}.0.1")
        .status_code
        for n in range(25)
    ]
    assert address_codes.count(201) == 20 and address_codes[20:] == [429] * 5
    after = _snapshot()
    after["User"] -= 20
    after["AuthToken"] -= 20
    assert after == before
    user.refresh_from_db()
    assert user.password == password_hash
