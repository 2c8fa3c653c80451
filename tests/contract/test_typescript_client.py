"""A TypeScript client typed from docs/openapi.yaml alone (openapi-typescript + openapi-fetch) compiles
under `tsc --strict` and plays a deal against the live server (tests/contract/typescript/play.ts;
node_tools.build_typescript_client says how it is built)."""

import json

import pytest

from tests.contract.node_tools import build_typescript_client, run_tool

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_strict_typescript_client_compiles_and_plays_a_deal(live_server):
    build_typescript_client()
    played = run_tool("node", "build/play.js", live_server.url, timeout=600)
    assert played.returncode == 0, played.stdout[-2000:] + played.stderr[-2000:]
    outcome = json.loads(played.stdout.strip().splitlines()[-1])
    assert outcome["phase"] == "over" and sum(outcome["scores"]) == 0, outcome
