"""The README and docs/ point only inside the repository, and their relative links resolve."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_LINK = re.compile(r"\]\(([^)#]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: path.name)
def test_docs_name_no_file_outside_the_repository(doc):
    text = doc.read_text()
    for outside in ("shared/", "CONTRACT.md", "RULES.md", "ARCHITECTURE.md", "](../"):
        assert outside not in text, f"{doc.name} mentions {outside}"
    for target in _LINK.findall(text):
        if re.match(r"^[a-z]+:", target):
            continue
        assert (doc.parent / target).exists(), f"{doc.name} links to missing {target}"


def test_readme_links_the_client_guide_rules_architecture_and_schema():
    readme = (ROOT / "README.md").read_text()
    for target in ("docs/client-guide.md", "docs/rules.md", "docs/architecture.md", "docs/openapi.yaml"):
        assert f"]({target})" in readme
