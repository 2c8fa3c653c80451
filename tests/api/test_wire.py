"""What an answer costs on the wire and what it says about itself: compression (but never of an answer
carrying a secret), `ETag` / `If-None-Match`, the API's version, no page-only headers on the JSON
(docs/security.md "Compression and BREACH", docs/client-guide.md §5)."""

import gzip
import json

import pytest
from django.conf import settings

from tests.api.playing import get_view, post_action

pytestmark = pytest.mark.django_db

PAGE_ONLY = ("Cross-Origin-Opener-Policy", "X-Frame-Options", "Referrer-Policy")


def test_a_view_is_gzipped_for_a_client_that_accepts_it_and_reads_the_same(make_table):
    setup = make_table()
    client = setup["clients"][0]
    plain = client.get(f"/api/v1/games/{setup['game']}")
    packed = client.get(f"/api/v1/games/{setup['game']}", HTTP_ACCEPT_ENCODING="gzip, br")
    assert "Content-Encoding" not in plain.headers
    assert packed.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["Vary"]
    assert len(packed.content) < len(plain.content)
    assert json.loads(gzip.decompress(packed.content)) == plain.json()


def test_a_new_token_is_never_compressed_nor_stored(make_client):
    response = make_client().post("/api/v1/auth/guest", {}, format="json", HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 201, response.content
    assert "token" in response.json()
    assert "Content-Encoding" not in response.headers
    assert "no-store" in response.headers["Cache-Control"]


def test_if_none_match_is_304_until_the_view_changes(make_table):
    setup = make_table()
    game = setup["game"]
    seat = next(s for s in range(5) if get_view(setup["clients"][s], game).get("legal_actions"))
    client = setup["clients"][seat]
    first = client.get(f"/api/v1/games/{game}", HTTP_ACCEPT_ENCODING="gzip")
    etag = first.headers["ETag"]
    again = client.get(f"/api/v1/games/{game}", HTTP_IF_NONE_MATCH=etag, HTTP_ACCEPT_ENCODING="gzip")
    assert again.status_code == 304 and again.content == b""
    view = get_view(client, game)
    assert post_action(client, game, view["legal_actions"][0], version=view["version"]).status_code == 200
    moved = client.get(f"/api/v1/games/{game}", HTTP_IF_NONE_MATCH=etag)
    assert moved.status_code == 200 and moved.json()["version"] == view["version"] + 1


def test_json_answers_carry_the_api_version_and_no_page_headers(make_table, make_client):
    setup = make_table()
    answers = [
        setup["clients"][0].get(f"/api/v1/games/{setup['game']}"),
        make_client().get("/api/v1/no-such-thing"),
        make_client().get(f"/api/v1/games/{setup['game']}"),
    ]
    for response in answers:
        assert response.headers["API-Version"] == settings.SPECTACULAR_SETTINGS["VERSION"]
        assert [name for name in PAGE_ONLY if name in response.headers] == []


def test_pages_keep_their_headers(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert "X-Frame-Options" in page.headers and "Cross-Origin-Opener-Policy" in page.headers
