"""Generating a Python client from the served schema with openapi-python-client (a subprocess)."""

import importlib
import json
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path
from types import ModuleType

PACKAGE = "bh_generated_client"


def _generator() -> str:
    found = Path(sys.executable).with_name("openapi-python-client")
    if found.exists():
        return str(found)
    path = shutil.which("openapi-python-client")
    assert path, "openapi-python-client is not installed (pip install -e '.[dev]')"
    return path


def generate_client(base_url: str, directory: Path) -> ModuleType:
    """Write the schema served at `base_url` to `directory`, generate the client there and import it."""
    with urllib.request.urlopen(f"{base_url}/api/schema/?format=json", timeout=60) as response:
        schema = json.load(response)
    return generate_client_from(schema, directory)


def generate_client_from(schema: dict, directory: Path) -> ModuleType:
    """Generate the client of `schema` in `directory` and import it."""
    schema_file = directory / "openapi.json"
    schema_file.write_text(json.dumps(schema))
    config = directory / "generator.yaml"
    config.write_text(
        f"package_name_override: {PACKAGE}\nproject_name_override: bh-generated-client\npost_hooks: []\n"
    )
    result = subprocess.run(
        [
            _generator(),
            "generate",
            "--path",
            str(schema_file),
            "--output-path",
            str(directory / PACKAGE),
            "--meta",
            "none",
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # The generator warns (and leaves the piece out) when it cannot express part of the schema.
    assert "Warning" not in result.stdout + result.stderr, result.stdout + result.stderr
    sys.path.insert(0, str(directory))
    try:
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(PACKAGE + ".")]:
            del sys.modules[name]
        return importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(directory))
