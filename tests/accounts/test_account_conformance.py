"""The account endpoints' answers (docs/client-guide.md §11), success and error alike, validated against
the served schema with undeclared keys forbidden (tests/contract/strict_schema.py)."""

import random

import pytest

from tests.api.playing import play_deal
from tests.contract.checked_client import CheckedClient
from tests.contract.strict_schema import StrictSchema

pytestmark = pytest.mark.django_db


def test_every_account_answer_conforms_to_the_schema(client, make_client, make_table):
    schema = StrictSchema(client.get("/api/schema/?format=json").json())
    problems: list[str] = []
    seen: set = set()

    def checked(token: str | None = None) -> CheckedClient:
        return CheckedClient(make_client(token), schema, problems, seen)

    setup = make_table(deals=2)
    play_deal(setup["clients"], setup["game"], random.Random(9))
    player = checked(setup["tokens"][0])
    guest = checked().post("/api/v1/auth/guest", {"device": "phone"}, format="json").json()
    upgraded = checked(guest["token"]).post(
        "/api/v1/auth/upgrade", {"username": "lihua", "password": "s3cret-pass"}, format="json"
    )
    assert upgraded.status_code == 200
    registered = checked(upgraded.json()["token"])
    registered.post("/api/v1/auth/upgrade", {"username": "x", "password": "s3cret-pass"}, format="json")
    checked(guest["token"]).post("/api/v1/auth/upgrade", {}, format="json")
    player.post("/api/v1/auth/tokens", {"name": "club", "scopes": ["read"]}, format="json")
    assert player.get("/api/v1/auth/tokens").status_code == 200
    assert player.get("/api/v1/me/export").status_code == 200
    player.post(
        "/api/v1/me/password", {"old_password": "nope-nope", "new_password": "n3w-s3cret"}, format="json"
    )
    changed = player.post(
        "/api/v1/me/password",
        {"old_password": "correct-horse-9", "new_password": "n3w-s3cret"},
        format="json",
    )
    assert changed.status_code == 200
    player.delete("/api/v1/auth/tokens/999999")
    player.delete("/api/v1/me", {"password": "wrong-pass"}, format="json")
    assert player.delete("/api/v1/me", {"password": "n3w-s3cret"}, format="json").status_code == 204
    player.get("/api/v1/me/export")  # 401 now
    assert {status for method, path, status in seen if path == "/api/v1/me/export"} == {200, 401}
    assert ("post", "/api/v1/auth/upgrade", 400) in seen and ("post", "/api/v1/me/password", 400) in seen
    assert not problems, "\n".join(problems)
