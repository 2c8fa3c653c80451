"""A TypeScript client typed from docs/openapi.yaml alone (openapi-typescript + openapi-fetch) compiles
under `tsc --strict` and plays a deal against the live server (tests/contract/typescript/play.ts).

openapi-typescript runs with `--default-non-nullable false`: its default makes every property with a
`default` required, which is right for answers and wrong for request bodies, where the server fills
the default in (`POST tables` without `private`)."""

import json

import pytest

from tests.contract.node_tools import run_tool

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_strict_typescript_client_compiles_and_plays_a_deal(live_server):
    generated = run_tool(
        "openapi-typescript",
        "../../../docs/openapi.yaml",
        "--default-non-nullable",
        "false",
        "--output",
        "build/schema.d.ts",
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    compiled = run_tool("tsc", "-p", "tsconfig.json")
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    played = run_tool("node", "build/play.js", live_server.url, timeout=600)
    assert played.returncode == 0, played.stdout[-2000:] + played.stderr[-2000:]
    outcome = json.loads(played.stdout.strip().splitlines()[-1])
    assert outcome["phase"] == "over" and sum(outcome["scores"]) == 0, outcome
