"""Chinese and English (docs/web-client.md "Languages"): the committed catalogue is complete and
compiled, the pages follow the reader's language, and the API's error messages do too while their
codes never change, from the web role and from the event server alike."""

import json
import re
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.utils import translation

from tests.conftest import assert_error
from tests.events import client as events


def _strings(response) -> dict:
    """The client's strings as the page hands them to its script (web/views.py)."""
    found = re.search(
        r'<script id="bh-strings" type="application/json">(.*?)</script>', response.content.decode()
    )
    return json.loads(found.group(1))


def _chinese(text: str) -> bool:
    return any("\u4e00" <= char <= "\u9fff" for char in text)


LOCALE = Path(settings.BASE_DIR) / "config" / "locale" / "zh_Hans" / "LC_MESSAGES"


def test_the_catalogue_is_complete_and_its_mo_is_compiled_from_the_current_po():
    po = polib.pofile(str(LOCALE / "django.po"))
    untranslated = [entry.msgid for entry in po if not entry.translated()]
    assert untranslated == []
    mo = polib.mofile(str(LOCALE / "django.mo"))
    compiled = {(entry.msgctxt, entry.msgid): entry.msgstr for entry in mo if entry.msgid}
    current = {(entry.msgctxt, entry.msgid): entry.msgstr for entry in po.translated_entries()}
    # `scripts/translations compile` after editing the .po.
    assert compiled == current


@pytest.mark.django_db
def test_the_client_page_follows_accept_language_and_the_switch(client):
    english = client.get("/", HTTP_ACCEPT_LANGUAGE="en")
    assert english.status_code == 200 and _strings(english)["play_guest"] == "Play as a guest"
    chinese = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")
    assert '<html lang="zh-hans">' in chinese.content.decode()
    assert _strings(chinese)["play_guest"] == "以游客身份开始"
    # The rule words are the players' own in both languages.
    assert _strings(chinese)["action_reveal"] == "明保" and "明保" in _strings(english)["action_reveal"]
    # The switch (Django's set_language) wins over the header.
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert _strings(client.get("/", HTTP_ACCEPT_LANGUAGE="zh-CN"))["play_guest"] == "Play as a guest"


@pytest.mark.django_db
def test_api_error_messages_are_translated_and_codes_unchanged(make_client, make_user):
    english = assert_error(make_client().get("/api/v1/me"), 401, "not_authenticated")
    chinese = assert_error(
        make_client().get("/api/v1/me", HTTP_ACCEPT_LANGUAGE="zh-Hans"), 401, "not_authenticated"
    )
    # The message DRF wrote has an entry in DRF's own catalogue; one without (most carry a request's
    # details) gives way to its code's sentence (infra/api/messages.py).
    assert _chinese(chinese["message"]) and not _chinese(english["message"])
    _, token = make_user()
    missing = make_client(token).get("/api/v1/games/999999", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert assert_error(missing, 404, "not_found")["message"] == "未找到。"
    body = {"type": "play", "cards": ["ZZ"], "expected_version": 0}
    refused = make_client(token).post(
        "/api/v1/tables/999999/join", body, format="json", HTTP_ACCEPT_LANGUAGE="zh-Hans"
    )
    assert _chinese(refused.json()["message"])


@pytest.mark.django_db(transaction=True)
def test_the_event_servers_errors_follow_the_same_language():
    # A language some earlier request left active (as LocaleMiddleware leaves it in its thread)
    # decides nothing: each answer is in the language its own request asks for.
    with translation.override("zh-hans"):
        english = events.get("/api/v1/me/events")
    chinese = events.get("/api/v1/me/events", headers={"Accept-Language": "fr;q=0.9, zh-Hans;q=0.8"})
    assert english.status == chinese.status == 401
    assert english.json()["code"] == chinese.json()["code"] == "not_authenticated"
    assert _chinese(chinese.json()["message"]) and not _chinese(english.json()["message"])
    assert english.json()["message"] != chinese.json()["message"]
    assert "Accept-Language" in chinese.headers["vary"]
