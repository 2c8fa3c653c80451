"""The Node tools of tests/contract/typescript (Redocly CLI, Spectral, openapi-typescript, tsc), at the
versions its package-lock.json pins. scripts/test installs them (`npm ci`); a run without them fails
and says how to install them."""

import os
import shutil
import subprocess
from pathlib import Path

TOOLS = Path(__file__).resolve().parent / "typescript"
OPENAPI_FILE = Path(__file__).resolve().parents[2] / "docs" / "openapi.yaml"

# No update checks or usage reports from the tools: the suite runs offline once they are installed.
_ENV = {
    "REDOCLY_TELEMETRY": "off",
    "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true",
    "NO_UPDATE_NOTIFIER": "1",
    "NO_COLOR": "1",
}


def run_tool(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """`args[0]` (`node`, or a tool from node_modules/.bin), run in tests/contract/typescript."""
    node = shutil.which("node")
    assert node, "Node.js is not installed (scripts/test needs Node 20 or later)"
    binary = Path(node) if args[0] == "node" else TOOLS / "node_modules" / ".bin" / args[0]
    assert binary.exists(), f"{args[0]} is not installed: run `npm ci` in {TOOLS} (scripts/test does)"
    return subprocess.run(
        [str(binary), *args[1:]],
        cwd=TOOLS,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **_ENV},
    )


def build_typescript_client() -> None:
    """Type docs/openapi.yaml with openapi-typescript (build/schema.d.ts) and compile the programs of
    tests/contract/typescript with `tsc --strict` (tsconfig.json). `--default-non-nullable false`: its
    default makes every property with a `default` required, which is right for answers and wrong for
    request bodies, where the server fills the default in (`POST tables` without `private`)."""
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
