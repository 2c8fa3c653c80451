"""Swagger UI and ReDoc come from the installed package (drf-spectacular-sidecar), not a CDN."""

import re

import pytest

_URL = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']|["'](https?://[^"']+)["']""")


@pytest.mark.parametrize("path", ["/api/docs/", "/api/redoc/"])
def test_docs_pages_reference_no_external_host(client, path):
    response = client.get(path)
    assert response.status_code == 200
    html = response.content.decode()
    urls = [a or b for a, b in _URL.findall(html)]
    assert urls, "the page loads no script"
    external = [url for url in urls if re.match(r"^(https?:)?//", url)]
    assert external == []
    assert any("drf_spectacular_sidecar" in url for url in urls)


def test_swagger_ui_script_is_served_by_the_app(client):
    html = client.get("/api/docs/").content.decode()
    script = re.search(r"""src\s*=\s*["']([^"']*\?script=[^"']*)["']""", html)
    assert script, html[:500]
    response = client.get(script.group(1).replace("&amp;", "&"))
    assert response.status_code == 200
    assert b"/api/schema/" in response.content
