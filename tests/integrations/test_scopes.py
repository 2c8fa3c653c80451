"""Scopes (docs/integrations.md): every endpoint of the URL conf refuses a token without its scope.

The endpoints are found by walking the URL conf, not listed by hand, so a new endpoint is checked
the day it is added: a write nobody classified in infra/api/endpoint_scopes.py fails here.
"""

import re
from pathlib import Path

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.permissions import AllowAny

from accounts import services
from accounts.models import AuthToken, User
from accounts.scopes import Scope
from infra.api.endpoint_scopes import NO_SCOPE, endpoint_scope
from tests.conftest import assert_error

METHODS = ("get", "post", "put", "patch", "delete")
ANONYMOUS = {"auth-register", "auth-token", "auth-guest"}


def _walk(patterns, prefix=""):
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            yield route, pattern


def api_endpoints():
    """(url name, a concrete path, method) of every API view's method."""
    found = []
    for route, pattern in _walk(get_resolver().url_patterns):
        view_class = getattr(pattern.callback, "cls", None)
        if not route.startswith("api/v1/") or view_class is None:
            continue
        path = "/" + re.sub(r"<\w+:\w+>", "1", route)
        for method in METHODS:
            if hasattr(view_class, method):
                found.append((pattern.name, path, method.upper(), view_class))
    return found


ENDPOINTS = api_endpoints()


def test_the_walk_finds_the_api():
    names = {name for name, *_ in ENDPOINTS}
    assert {"game-actions", "table-create", "webhooks", "moderation-audit", "me-events"} <= names
    assert len(ENDPOINTS) > 30


def test_only_the_sign_in_endpoints_are_open_without_a_token():
    open_endpoints = {name for name, _, _, cls in ENDPOINTS if AllowAny in cls.permission_classes}
    assert open_endpoints == ANONYMOUS


def test_every_write_endpoint_names_its_scope():
    unlisted = [
        (name, method)
        for name, _, method, _ in ENDPOINTS
        if name not in ANONYMOUS and endpoint_scope(url_name=name, method=method) is None
    ]
    assert unlisted == [], "add these to infra/api/endpoint_scopes.py"


def _token(user, scopes):
    _, key = services.personal_token_create(
        user=user, name="t", scopes=sorted(scopes), expires_in_days=1, granted=frozenset(Scope.values)
    )
    return key


def _call(client, method, path):
    return getattr(client, method.lower())(path, {}, format="json") if method != "GET" else client.get(path)


@pytest.mark.parametrize(
    ("name", "path", "method"),
    [(name, path, method) for name, path, method, _ in ENDPOINTS if name not in ANONYMOUS],
)
def test_a_token_without_the_endpoints_scope_is_refused(db, make_client, name, path, method):
    # A superuser passes every other check (staff only, moderator rights), so the scope is what decides.
    user = User.objects.create_superuser(username=f"root-{name}-{method}", password="correct-horse-9")
    scope = endpoint_scope(url_name=name, method=method)
    if scope is NO_SCOPE:
        response = _call(make_client(_token(user, {Scope.READ})), method, path)
        assert not (response.status_code == 403 and response.json()["code"] == "missing_scope")
        return
    others = set(Scope.values) - {scope}
    body = assert_error(_call(make_client(_token(user, others)), method, path), 403, "missing_scope")
    assert body["extra"] == {"scope": scope}
    response = _call(make_client(_token(user, {scope})), method, path)
    assert response.status_code not in (401, 500)
    assert not (response.status_code == 403 and response.json()["code"] == "missing_scope"), response.json()


def test_a_refused_write_changes_nothing(make_user, make_client, make_table):
    setup = make_table()
    user = setup["users"][0]
    read_only = make_client(_token(user, {Scope.READ}))
    view = read_only.get(f"/api/v1/games/{setup['game']}").json()
    action = view["legal_actions"][0] if view.get("legal_actions") else {"type": "pass"}
    response = read_only.post(f"/api/v1/games/{setup['game']}/actions", action, format="json")
    assert_error(response, 403, "missing_scope")
    assert read_only.get(f"/api/v1/games/{setup['game']}").json()["version"] == view["version"]
    assert_error(read_only.post("/api/v1/tables", {"preset": "weihai"}, format="json"), 403, "missing_scope")


def test_a_user_who_is_not_staff_holds_no_moderation_scope(make_user, make_client):
    user, login_token = make_user()
    response = make_client(login_token).post(
        "/api/v1/auth/tokens", {"name": "mod", "scopes": ["moderation"]}, format="json"
    )
    assert assert_error(response, 403, "missing_scope")["extra"] == {"scope": "moderation"}


def test_the_schema_declares_each_operations_scope(make_client):
    response = make_client().get("/api/schema/?format=json")
    schema = response.json()
    flows = schema["components"]["securitySchemes"]["oauth2"]["flows"]["authorizationCode"]
    assert set(flows["scopes"]) == set(Scope.values)
    assert schema["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    operation = schema["paths"]["/api/v1/games/{game_id}/actions"]["post"]
    assert {"oauth2": ["play"]} in operation["security"]
    assert {"oauth2": ["read"]} in schema["paths"]["/api/v1/games/{game_id}"]["get"]["security"]
    assert {"oauth2": ["tables"]} in schema["paths"]["/api/v1/tables"]["post"]["security"]
    assert {"oauth2": ["moderation"]} in schema["paths"]["/api/v1/moderation/audit"]["get"]["security"]
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if operation.get("security") and {} not in operation["security"]:
                oauth = next(req["oauth2"] for req in operation["security"] if "oauth2" in req)
                assert len(oauth) <= 1, (path, method, oauth)
            missing = "403" in operation["responses"] and "missing_scope" in operation["responses"][
                "403"
            ].get("description", "")
            if operation.get("security") and {} not in operation["security"]:
                assert missing, (path, method)


def test_a_read_only_token_cannot_touch_the_users_other_credentials(make_user, make_client):
    """`read` must not revoke credentials: tokens, logout-all and the token list need `tokens`."""
    _, login = make_user()
    owner = make_client(login)
    other = owner.post("/api/v1/auth/tokens", {"name": "o", "scopes": ["read"]}, format="json").json()
    user = User.objects.get(auth_tokens__key_hash=AuthToken.hash_key(login))
    read_only = make_client(_token(user, {Scope.READ}))
    for response in (
        read_only.delete(f"/api/v1/auth/tokens/{other['id']}"),
        read_only.post("/api/v1/auth/logout-all"),
        read_only.get("/api/v1/auth/tokens"),
        read_only.post("/api/v1/auth/tokens", {"name": "x", "scopes": ["read"]}, format="json"),
    ):
        assert assert_error(response, 403, "missing_scope")["extra"] == {"scope": "tokens"}
    assert owner.get("/api/v1/me").status_code == 200
    assert make_client(other["token"]).get("/api/v1/me").status_code == 200
    # The token it was given can always sign itself out.
    assert read_only.post("/api/v1/auth/logout").status_code == 204


def _documented_scopes() -> dict[tuple[str, str], str]:
    """docs/integrations.md "Every endpoint's scope": (method, path) -> the scope column."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "integrations.md").read_text()
    section = docs.split("### Every endpoint's scope", 1)[1].split("\n## ", 1)[0]
    found = {}
    for endpoint, scope in re.findall(r"^\| `([A-Z]+ [^`]+)` \| ([^|]+) \|$", section, re.MULTILINE):
        method, path = endpoint.split(" ", 1)
        found[(method, path)] = scope.strip()
    return found


def test_the_docs_list_every_endpoints_scope():
    documented = _documented_scopes()
    expected = {}
    for route, pattern in _walk(get_resolver().url_patterns):
        view_class = getattr(pattern.callback, "cls", None)
        if not route.startswith("api/v1/") or view_class is None or pattern.name == "bench-bare":
            continue
        path = re.sub(r"<\w+:(\w+)>", r"{\1}", route.removeprefix("api/v1/"))
        for method in (m.upper() for m in METHODS if hasattr(view_class, m)):
            expected[(method, path)] = endpoint_scope(url_name=pattern.name, method=method)
    assert set(documented) == set(expected)
    for key, scope in expected.items():
        column = documented[key]
        if scope is None:
            assert column.startswith("none"), key
        elif scope is NO_SCOPE:
            assert column.startswith("any token"), key
        else:
            assert column.startswith(f"`{scope}`"), (key, column)
