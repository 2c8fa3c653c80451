"""Integrators' bot accounts (docs/integrations.md): registered by staff, playing through the API with a
token."""

from accounts.models import AuthToken, User
from games.models import Game
from tests.conftest import assert_error


def _register(client, **payload):
    return client.post("/api/v1/bots", payload, format="json")


def test_staff_registers_a_bot_that_joins_and_plays_like_anyone(make_user, make_client, make_table):
    integrator, _ = make_user()
    _, staff_token = make_user(staff=True)
    staff = make_client(staff_token)
    response = _register(staff, username="club-bot", owner=integrator.pk)
    assert response.status_code == 201, response.json()
    body = response.json()
    bot = User.objects.get(pk=body["user"]["id"])
    assert bot.is_bot and bot.bot_owner == integrator and not bot.is_server_bot
    assert not bot.has_usable_password() and body["user"]["is_bot"] is True and body["owner"] == integrator.pk
    token = AuthToken.objects.get(user=bot)
    assert sorted(token.scopes) == ["play", "read", "tables"]
    client = make_client(body["token"])
    assert client.get("/api/v1/me").json()["is_bot"] is True
    # It sits at a table like anyone; the deal that starts treats its seat as a player's, not the server's.
    created = staff.post("/api/v1/tables", {"preset": "weihai"}, format="json").json()
    joined = client.post(
        f"/api/v1/tables/{created['id']}/join", {"code": created["code"], "seat": 0}, format="json"
    )
    assert joined.status_code == 200, joined.json()
    for seat in range(1, 5):
        _, token = make_user()
        make_client(token).post(
            f"/api/v1/tables/{created['id']}/join", {"code": created["code"], "seat": seat}, format="json"
        )
    game_id = staff.get(f"/api/v1/tables/{created['id']}").json()["current_game"]
    game = Game.objects.get(pk=game_id)
    assert game.bots == [False] * 5
    view = client.get(f"/api/v1/games/{game_id}")
    assert view.status_code == 200 and view.json()["seat"] == 0
    # Its token does not reach beyond playing.
    assert_error(
        client.post("/api/v1/webhooks", {"url": "https://x.example", "events": ["game.over"]}, format="json"),
        403,
        "missing_scope",
    )


def test_only_staff_registers_bots_and_bad_requests_change_nothing(make_user, make_client):
    integrator, token = make_user()
    assert_error(
        _register(make_client(token), username="mine", owner=integrator.pk), 403, "permission_denied"
    )
    _, staff_token = make_user(staff=True)
    staff = make_client(staff_token)
    assert_error(_register(staff, username="b1", owner=999999), 400, "invalid_request")
    assert_error(
        _register(staff, username=integrator.username.upper(), owner=integrator.pk), 400, "invalid_request"
    )
    assert_error(_register(staff, username="guest-123", owner=integrator.pk), 400, "invalid_request")
    assert_error(_register(staff, username="b2", owner=integrator.pk, extra=1), 400, "invalid_request")
    assert not User.objects.filter(is_bot=True).exists()


def test_a_bot_cannot_sign_in_with_a_password(make_user, make_client):
    integrator, _ = make_user()
    _, staff_token = make_user(staff=True)
    _register(make_client(staff_token), username="pw-bot", owner=integrator.pk)
    response = make_client().post("/api/v1/auth/token", {"username": "pw-bot", "password": ""}, format="json")
    assert response.status_code == 400
