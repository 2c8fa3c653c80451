"""OAuth 2 for third-party apps (docs/integrations.md): authorization code with PKCE, end to end against the
live
test server, the way a browser and an app would go through it; the token then plays."""

import base64
import hashlib
import secrets
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests
from oauth2_provider.models import get_application_model

from games.models import Game
from tests.api.playing import prompted_seats

pytestmark = pytest.mark.django_db(transaction=True)

REDIRECT_URI = "http://127.0.0.1:8765/callback"


class _Form(HTMLParser):
    """The inputs of the page's (first) form: name -> value."""

    def __init__(self, html: str):
        super().__init__()
        self.fields: dict[str, str] = {}
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "input" and attrs.get("name") and attrs.get("type") != "submit":
            self.fields[attrs["name"]] = attrs.get("value") or ""


def _pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def _authorize(
    base: str, client_id: str, *, username: str, password: str, scope: str, wrong_verifier: bool = False
) -> dict:
    """The whole flow: authorize → sign in → consent → code → token. Returns the token response."""
    verifier, challenge = _pkce()
    if wrong_verifier:
        verifier = _pkce()[0]
    browser = requests.Session()
    query = urlencode(
        {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": REDIRECT_URI,
            "scope": scope,
            "state": "st-42",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
    )
    login_page = browser.get(f"{base}/o/authorize/?{query}", timeout=10)
    assert login_page.status_code == 200 and "/o/login/" in login_page.url
    login = _Form(login_page.text).fields
    consent_page = browser.post(
        f"{base}/o/login/", data={**login, "username": username, "password": password}, timeout=10
    )
    assert consent_page.status_code == 200 and "/o/authorize/" in consent_page.url, consent_page.text[:500]
    assert "Authorize" in consent_page.text
    consent = _Form(consent_page.text).fields
    assert consent["code_challenge"] == challenge and set(consent["scope"].split()) == set(scope.split())
    answer = browser.post(
        consent_page.url, data={**consent, "allow": "Authorize"}, allow_redirects=False, timeout=10
    )
    assert answer.status_code == 302, answer.text[:500]
    location = urlsplit(answer.headers["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == REDIRECT_URI
    params = parse_qs(location.query)
    assert params["state"] == ["st-42"]
    # The app (no browser, no cookies) trades the code and its verifier for a token.
    token = requests.post(
        f"{base}/o/token/",
        data={
            "grant_type": "authorization_code",
            "code": params["code"][0],
            "redirect_uri": REDIRECT_URI,
            "client_id": client_id,
            "code_verifier": verifier,
        },
        timeout=10,
    )
    assert token.status_code == 200, token.text
    return token.json()


@pytest.fixture
def application(db):
    from accounts.models import User

    owner = User.objects.create_user(username="vendor", password="correct-horse-9")
    return get_application_model().objects.create(
        name="Club app",
        user=owner,
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris=REDIRECT_URI,
        algorithm="",
    )


def test_an_oauth_token_from_the_pkce_flow_plays(live_server, application, make_table):
    setup = make_table()
    game_id = setup["game"]
    public = setup["staff"].get(f"/api/v1/games/{game_id}").json()
    seat = prompted_seats(public)[0]
    player = setup["users"][seat]
    token = _authorize(
        live_server.url,
        application.client_id,
        username=player.username,
        password="correct-horse-9",
        scope="read play",
    )
    assert set(token["scope"].split()) == {"read", "play"}
    api = requests.Session()
    api.headers["Authorization"] = f"Bearer {token['access_token']}"
    me = api.get(f"{live_server.url}/api/v1/me", timeout=10)
    assert me.status_code == 200 and me.json()["id"] == player.pk
    view = api.get(f"{live_server.url}/api/v1/games/{game_id}", timeout=10).json()
    action = view["legal_actions"][0]
    played = api.post(
        f"{live_server.url}/api/v1/games/{game_id}/actions",
        json={
            **{k: v for k, v in action.items() if v not in (None, [])},
            "expected_version": view["version"],
        },
        timeout=10,
    )
    assert played.status_code == 200, played.text
    assert Game.objects.get(pk=game_id).version == view["version"] + 1
    # Outside its scopes: no tables.
    refused = api.post(f"{live_server.url}/api/v1/tables", json={"preset": "weihai"}, timeout=10)
    assert refused.status_code == 403 and refused.json()["extra"] == {"scope": "tables"}
    # Revoked by the app: the same header is now refused.
    revoked = requests.post(
        f"{live_server.url}/o/revoke_token/",
        data={"token": token["access_token"], "client_id": application.client_id},
        timeout=10,
    )
    assert revoked.status_code == 200
    after = api.get(f"{live_server.url}/api/v1/me", timeout=10)
    assert after.status_code == 401 and after.json()["code"] == "not_authenticated"


def test_a_code_with_the_wrong_verifier_gets_no_token(live_server, application):
    from accounts.models import User

    User.objects.create_user(username="pkce-user", password="correct-horse-9")
    with pytest.raises(AssertionError, match="invalid_grant"):
        _authorize(
            live_server.url,
            application.client_id,
            username="pkce-user",
            password="correct-horse-9",
            scope="read",
            wrong_verifier=True,
        )


def test_the_sign_in_page_counts_wrong_passwords_like_the_api(client, settings, make_user):
    settings.LOGIN_FAILURES_MAX = 2
    user, _ = make_user()
    for _ in range(2):
        page = client.post("/o/login/", {"username": user.username, "password": "wrong-password"})
        assert page.status_code == 200 and "Wrong username or password" in page.content.decode()
    # Locked: even the right password is refused now, and no session is opened.
    page = client.post("/o/login/", {"username": user.username, "password": "correct-horse-9"})
    assert page.status_code == 200 and "_auth_user_id" not in client.session
