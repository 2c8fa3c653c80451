"""What a later minor version may add (docs/changelog.md "Versions and deprecation": new event types, new
error codes) does not break a client generated from today's docs/openapi.yaml: a Python client
(openapi-python-client) and a TypeScript one (openapi-typescript, `tsc --strict`) read an answer with an
event type and an error code the schema does not know, keep them and go on."""

import json

import pytest
import yaml

from tests.contract.generated_client import PACKAGE, generate_client_from
from tests.contract.node_tools import OPENAPI_FILE, build_typescript_client, run_tool

# An answer of a later version: a known event, then one of a type added since.
EVENTS = {
    "events": [
        {"type": "play", "seq": 8, "seat": 0, "cards": ["5S"], "bomb": False},
        {"type": "turn_passed", "seq": 9, "seat": 1, "note": "added later"},
    ],
    "last_seq": 9,
    "version": 5,
}
FEED = {"events": [{"type": "season_started", "seq": 3, "season": 2}], "last_seq": 3}
NEW_ERROR = {"code": "season_closed", "message": "New.", "extra": {"season": 2}}
STALE = {"code": "stale_version", "message": "The game is at version 7.", "extra": {"version": 7}}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    schema = yaml.safe_load(OPENAPI_FILE.read_text())
    return generate_client_from(schema, tmp_path_factory.mktemp("forward"))


def _model(client, name: str):
    import importlib

    return getattr(importlib.import_module(f"{PACKAGE}.models"), name)


def test_a_generated_python_client_keeps_an_unknown_event(client):
    page = _model(client, "GameEvents").from_dict(EVENTS)
    known, new = page.events
    assert type(known).__name__ == "PlayEvent" and known.cards == ["5S"]
    assert type(new).__name__ == "UnknownGameEvent"
    assert new.type_ == "turn_passed" and new["seq"] == 9 and new["note"] == "added later"
    feed = _model(client, "Feed").from_dict(FEED)
    (entry,) = feed.events
    assert type(entry).__name__ == "UnknownFeedEvent" and entry.type_ == "season_started"


def test_a_generated_python_client_keeps_an_unknown_error_code(client):
    error_type = _model(client, "Error")
    new = error_type.from_dict(NEW_ERROR)
    assert new.code == "season_closed" and new.extra["season"] == 2
    stale = error_type.from_dict(STALE)
    assert stale.code == _model(client, "ErrorCode").STALE_VERSION and stale.extra.version == 7


def test_a_strict_typescript_client_keeps_an_unknown_event_and_error_code():
    build_typescript_client()
    for error, expected in ((NEW_ERROR, "kept season_closed"), (STALE, "stale at 7")):
        ran = run_tool("node", "build/forward.js", json.dumps({"events": EVENTS, "error": error}))
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert json.loads(ran.stdout) == {"events": ["play 5S", "kept turn_passed"], "error": expected}
