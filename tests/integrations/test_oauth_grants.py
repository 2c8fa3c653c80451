"""Only the authorization code grant with PKCE (docs/integrations.md "OAuth 2"): no other grant can be
registered, and an application row made for another grant (earlier, or by an admin) gets no token
(accounts/oauth_grants.py). And every page that checks a password counts toward the one lock-out
(docs/security.md)."""

import base64
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model, get_refresh_token_model

from accounts.models import AuthToken

REDIRECT_URI = "http://127.0.0.1:8765/callback"
SECRET = "s3cret-of-the-app"
OTHER_GRANTS = ("password", "implicit", "client-credentials", "urn:ietf:params:oauth:grant-type:device_code")


def _signed_in(user) -> Client:
    client = Client(raise_request_exception=False)
    page = client.post("/o/login/", {"username": user.username, "password": "correct-horse-9"})
    assert page.status_code == 302
    return client


def _application(user, *, grant: str, client_type: str = "confidential"):
    """An application row made directly, as one registered before the fix or by an admin would be."""
    return get_application_model().objects.create(
        name=f"{grant} app",
        user=user,
        client_type=client_type,
        authorization_grant_type=grant,
        client_secret=SECRET,
        redirect_uris=REDIRECT_URI,
    )


def _basic(app) -> str:
    return "Basic " + base64.b64encode(f"{app.client_id}:{SECRET}".encode()).decode()


def _token(client: Client, app, **body):
    return client.post("/o/token/", body, HTTP_AUTHORIZATION=_basic(app))


def _oauth_error(response, error: str) -> None:
    """RFC 6749 §5.2's error answer: 400, JSON, no token in it."""
    assert response.status_code == 400, (response.status_code, response.content[:300])
    body = response.json()
    assert body["error"] == error, body
    assert "access_token" not in body


def _registration(grant: str) -> dict:
    return {
        "name": "my app",
        "client_id": f"id-{grant[:20]}",
        "client_secret": "a-client-secret-of-some-length",
        "hash_client_secret": "on",
        "client_type": "confidential",
        "authorization_grant_type": grant,
        "redirect_uris": REDIRECT_URI,
        "post_logout_redirect_uris": "",
        "allowed_origins": "",
        "algorithm": "",
    }


@pytest.mark.parametrize("grant", [*OTHER_GRANTS, "openid-hybrid"])
def test_registering_an_application_for_another_grant_is_a_form_error(make_user, grant):
    user, _ = make_user()
    client = _signed_in(user)
    page = client.post("/o/applications/register/", _registration(grant))
    assert page.status_code == 200
    assert "authorization_grant_type" in page.context["form"].errors
    assert not get_application_model().objects.exists()


def test_the_registration_form_offers_only_the_authorization_code_grant(make_user):
    client = _signed_in(make_user()[0])
    form = client.get("/o/applications/register/").context["form"]
    assert [value for value, _ in form.fields["authorization_grant_type"].choices] == ["authorization-code"]
    page = client.post("/o/applications/register/", _registration("authorization-code"))
    assert page.status_code == 302
    assert get_application_model().objects.get().authorization_grant_type == "authorization-code"


def test_an_application_cannot_be_switched_to_another_grant(make_user):
    user, _ = make_user()
    app = _application(user, grant="authorization-code")
    page = _signed_in(user).post(f"/o/applications/{app.pk}/update/", _registration("password"))
    assert page.status_code == 200 and "authorization_grant_type" in page.context["form"].errors
    app.refresh_from_db()
    assert app.authorization_grant_type == "authorization-code"


@pytest.mark.parametrize("grant", [*OTHER_GRANTS, "openid-hybrid"])
def test_the_admin_cannot_make_an_application_for_another_grant(make_user, grant):
    admin_user, _ = make_user(staff=True)
    admin_user.is_superuser = True
    admin_user.save()
    client = Client(raise_request_exception=False)
    client.force_login(admin_user)
    data = {**_registration(grant), "user": admin_user.pk, "skip_authorization": ""}
    page = client.post("/admin/oauth2_provider/application/add/", data)
    assert page.status_code == 200
    assert "authorization_grant_type" in page.context["adminform"].form.errors
    assert not get_application_model().objects.exists()


def test_a_password_grant_application_gets_no_token_and_checks_no_password(make_user, settings):
    """The probe: 40 wrong guesses through a password-grant app never met the lock-out, and the right
    password then got a full-scope token. Now the grant does not exist: the same answer for a right
    and a wrong password (no oracle), nothing counted, nothing issued."""
    settings.LOGIN_FAILURES_MAX = 10
    user, _ = make_user()
    app = _application(user, grant="password")
    client = Client(raise_request_exception=False)
    for attempt in range(12):
        guess = {"grant_type": "password", "username": user.username, "password": f"guess-{attempt}"}
        _oauth_error(_token(client, app, **guess), "unsupported_grant_type")
    right = {"grant_type": "password", "username": user.username, "password": "correct-horse-9"}
    _oauth_error(_token(client, app, **right), "unsupported_grant_type")
    assert not get_access_token_model().objects.exists()
    # No password was checked, so none was counted: the account still signs in.
    response = client.post(
        "/api/v1/auth/token", {"username": user.username, "password": "correct-horse-9"}, "application/json"
    )
    assert response.status_code == 200


def test_an_authorization_code_application_is_no_password_oracle(make_user):
    """oauthlib's password grant checks the password before asking whether the client may use the
    grant: with the toolkit's server, a wrong password answered `invalid_grant` and the right one
    `unauthorized_client` for any application."""
    user, _ = make_user()
    app = _application(user, grant="authorization-code")
    client = Client(raise_request_exception=False)
    for password in ("wrong-password", "correct-horse-9"):
        body = {"grant_type": "password", "username": user.username, "password": password}
        _oauth_error(_token(client, app, **body), "unsupported_grant_type")


@pytest.mark.parametrize(
    ("grant", "body"),
    [
        ("client-credentials", {"grant_type": "client_credentials"}),
        (
            "urn:ietf:params:oauth:grant-type:device_code",
            {"grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": "x"},
        ),
        (
            "urn:ietf:params:oauth:grant-type:device_code",
            {"grant_type": "urn:ietf:params:oauth:grant-type:device_code"},
        ),
    ],
)
def test_client_credentials_and_device_applications_get_no_token(make_user, grant, body):
    app = _application(make_user()[0], grant=grant)
    _oauth_error(_token(Client(), app, **body), "unsupported_grant_type")
    assert not get_access_token_model().objects.exists()


def test_the_device_flow_and_introspection_pages_are_not_served(make_user):
    app = _application(make_user()[0], grant="urn:ietf:params:oauth:grant-type:device_code")
    client = Client(raise_request_exception=False)
    assert client.post("/o/device-authorization/", {"client_id": app.client_id}).status_code == 404
    assert client.get("/o/device/").status_code == 404
    assert client.post("/o/introspect/", {"token": "x"}, HTTP_AUTHORIZATION=_basic(app)).status_code == 404


def test_a_refresh_token_of_another_grant_application_gets_no_token(make_user):
    user, _ = make_user()
    app = _application(user, grant="password")
    access = get_access_token_model().objects.create(
        user=user,
        application=app,
        token="old-access",
        scope="read",
        expires=timezone.now() - timedelta(hours=1),
    )
    get_refresh_token_model().objects.create(
        user=user, application=app, token="old-refresh", access_token=access
    )
    response = _token(Client(), app, grant_type="refresh_token", refresh_token="old-refresh")
    _oauth_error(response, "unauthorized_client")
    assert get_access_token_model().objects.count() == 1


def _authorize_query(app, response_type: str) -> dict:
    return {
        "client_id": app.client_id,
        "response_type": response_type,
        "redirect_uri": REDIRECT_URI,
        "scope": "read",
        "state": "st-1",
        "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        "code_challenge_method": "S256",
    }


@pytest.mark.parametrize("response_type", ["token", "id_token token", "code token"])
@pytest.mark.parametrize("grant", ["implicit", "authorization-code"])
def test_an_implicit_response_type_gets_no_token_in_the_redirect(make_user, grant, response_type):
    user, _ = make_user()
    app = _application(user, grant=grant, client_type="public")
    client = _signed_in(user)
    query = _authorize_query(app, response_type)
    for answer in (
        client.get("/o/authorize/", query),
        client.post("/o/authorize/", {**query, "allow": "Authorize"}),
    ):
        assert answer.status_code == 302, answer.content[:300]
        location = urlsplit(answer["Location"])
        assert location.fragment == "" and "access_token" not in answer["Location"]
        # oauthlib hands a response type holding `code` to the code grant, which asks the validator.
        expected = "unauthorized_client" if "code" in response_type else "unsupported_response_type"
        assert parse_qs(location.query)["error"] == [expected]
    assert not get_access_token_model().objects.exists()


def test_an_implicit_application_gets_no_code_either(make_user):
    user, _ = make_user()
    app = _application(user, grant="implicit", client_type="public")
    answer = _signed_in(user).post("/o/authorize/", {**_authorize_query(app, "code"), "allow": "Authorize"})
    assert answer.status_code == 302
    assert parse_qs(urlsplit(answer["Location"]).query)["error"] == ["unauthorized_client"]


def test_wrong_passwords_count_across_every_sign_in_page(make_user, make_client, settings):
    """One lock-out for the account whichever page the guesses go to: the API, the OAuth sign-in page
    and the admin's, in any mix; then the right password is refused on each of them."""
    settings.LOGIN_FAILURES_MAX = 10
    user, _ = make_user(staff=True)
    wrong = {"username": user.username, "password": "wrong-password"}
    right = {"username": user.username, "password": "correct-horse-9"}
    for _ in range(4):
        assert make_client().post("/api/v1/auth/token", wrong, format="json").status_code == 401
    for _ in range(3):
        assert Client().post("/o/login/", wrong).status_code == 200
    for _ in range(3):
        assert Client().post("/admin/login/", wrong).status_code == 200
    tokens = AuthToken.objects.count()
    assert make_client().post("/api/v1/auth/token", right, format="json").status_code == 429
    for page in ("/o/login/", "/admin/login/"):
        client = Client()
        answer = client.post(page, right)
        assert answer.status_code == 200
        assert [error.code for error in answer.context["form"].non_field_errors().as_data()] == ["throttled"]
        assert "_auth_user_id" not in client.session
    assert AuthToken.objects.count() == tokens


def test_wrong_old_passwords_on_the_admin_password_change_page_count_too(make_user, make_client, settings):
    """The admin's password change page checks the old password: a stolen staff session could guess
    it there, outside the lock-out. It counts and obeys the same one."""
    settings.LOGIN_FAILURES_MAX = 10
    user, _ = make_user(staff=True)
    client = Client()
    client.force_login(user)
    change = {"new_password1": "another-horse-7", "new_password2": "another-horse-7"}
    for attempt in range(10):
        page = client.post("/admin/password_change/", {**change, "old_password": f"guess-{attempt}"})
        assert page.status_code == 200 and "old_password" in page.context["form"].errors
    right = {"username": user.username, "password": "correct-horse-9"}
    assert make_client().post("/api/v1/auth/token", right, format="json").status_code == 429
    page = client.post("/admin/password_change/", {**change, "old_password": "correct-horse-9"})
    assert page.status_code == 200
    assert [error.code for error in page.context["form"].errors.as_data()["old_password"]] == ["throttled"]
    user.refresh_from_db()
    assert user.check_password("correct-horse-9")


def test_the_admin_password_change_page_still_changes_a_password(make_user):
    user, _ = make_user(staff=True)
    client = Client()
    client.force_login(user)
    change = {
        "old_password": "correct-horse-9",
        "new_password1": "another-horse-7",
        "new_password2": "another-horse-7",
    }
    page = client.post("/admin/password_change/", change)
    assert page.status_code == 302 and page["Location"] == "/admin/password_change/done/"
    user.refresh_from_db()
    assert user.check_password("another-horse-7")
