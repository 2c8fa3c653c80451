"""docs/openapi.yaml is the schema the code generates, and its version is the API's."""

from pathlib import Path

import yaml
from django.core.management import call_command

OPENAPI_FILE = Path(__file__).resolve().parents[2] / "docs" / "openapi.yaml"


def test_committed_openapi_file_is_the_generated_schema(tmp_path):
    generated = tmp_path / "openapi.yaml"
    call_command("spectacular", "--fail-on-warn", "--file", str(generated))
    assert generated.read_text() == OPENAPI_FILE.read_text(), (
        "docs/openapi.yaml is out of date: run scripts/schema and commit it"
    )


def test_schema_version_is_the_api_version(client):
    served = client.get("/api/schema/?format=json").json()
    assert served["info"]["version"] == "1.7.0"
    assert yaml.safe_load(OPENAPI_FILE.read_text())["info"]["version"] == "1.7.0"


def test_schema_text_points_only_inside_the_repository(client):
    served = client.get("/api/schema/?format=json")
    assert "docs/client-guide.md" in served.json()["info"]["description"]
    text = served.content.decode()
    for outside in ("shared/", "CONTRACT", "RULES", "ARCHITECTURE"):
        assert outside not in text
