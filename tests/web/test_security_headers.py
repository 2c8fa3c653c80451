"""The pages' Content-Security-Policy (config/settings/base.py CONTENT_SECURITY_POLICY, docs/security.md
"Content-Security-Policy"): the web client, the admin, the OAuth pages and the API docs load scripts
from the server alone, none inline; no plugin, no <base>, no framing. The JSON API carries no page
policy."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

pytestmark = pytest.mark.django_db

PAGES = ["/", "/play/1", "/replay/1", "/admin/login/", "/o/login/", "/api/docs/", "/api/redoc/"]


def _policy(response) -> dict[str, list[str]]:
    header = response.headers.get("Content-Security-Policy")
    assert header, (response.status_code, dict(response.headers))
    directives = {}
    for part in header.split(";"):
        name, *sources = part.split()
        assert name not in directives, header
        directives[name] = sources
    return directives


@pytest.mark.parametrize("path", PAGES)
def test_every_page_loads_scripts_from_the_server_alone(path):
    response = Client().get(path)
    assert response.status_code == 200
    policy = _policy(response)
    assert policy["default-src"] == ["'self'"]
    # Same-origin files only: no inline script, no eval, no other host, and no nonce or hash either,
    # since no page has an inline script.
    assert policy["script-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["connect-src"] == ["'self'"]
    for directive, sources in policy.items():
        assert all(s in ("'self'", "'none'", "'unsafe-inline'", "data:", "blob:") for s in sources), (
            directive,
            sources,
        )


@pytest.mark.parametrize("path", ["/", "/play/1", "/replay/1", "/admin/login/", "/o/login/", "/api/docs/"])
def test_pages_but_redoc_allow_no_inline_style(path):
    assert _policy(Client().get(path))["style-src"] == ["'self'"]


def test_redoc_alone_may_add_inline_styles_and_its_search_worker():
    """ReDoc writes its styles into <style> elements at run time (styled-components) and runs its
    search in a worker made from a blob: URL; nothing else is relaxed for it."""
    policy = _policy(Client().get("/api/redoc/"))
    assert policy["style-src"] == ["'self'", "'unsafe-inline'"]
    assert policy["worker-src"] == ["'self'", "blob:"]
    assert policy["script-src"] == ["'self'"]


def test_pages_carry_no_inline_script():
    for path in PAGES:
        content = Client().get(path).content.decode()
        scripts = content.split("<script")[1:]
        for script in scripts:
            opening = script.split(">", 1)[0]
            # A JSON data block (json_script) is not run; every other script names its file.
            assert "src=" in opening or 'type="application/json"' in opening, (path, opening)


@pytest.mark.parametrize(
    ("path", "status"), [("/api/v1/matchmaking/stats", 401), ("/api/v1/me", 401), ("/api/schema/", 200)]
)
def test_the_json_api_carries_no_page_policy(path, status, make_user):
    response = Client().get(path)
    assert response.status_code == status and "Content-Security-Policy" not in response.headers


TEMPLATE_ROOTS = ["accounts", "games", "matchmaking", "web", "config"]
INLINE = re.compile(
    r"<style\b|\sstyle=|\son[a-z]+=|<script\b(?![^>]*\bsrc=)(?![^>]*application/json)", re.IGNORECASE
)


def test_no_template_of_ours_has_inline_script_style_or_handler():
    """What the pages' policy would refuse, found before a browser does: every template of the
    project (ReDoc's page alone may carry inline styles)."""
    found = []
    for root in TEMPLATE_ROOTS:
        for template in (Path(settings.BASE_DIR) / root).rglob("templates/**/*.html"):
            text = re.sub(r"{% comment %}.*?{% endcomment %}", "", template.read_text(), flags=re.DOTALL)
            if template.name == "redoc.html":
                text = re.sub(r"<style>.*?</style>", "", text, flags=re.DOTALL)
            found += [(str(template), match.group()) for match in INLINE.finditer(text)]
    assert found == []
