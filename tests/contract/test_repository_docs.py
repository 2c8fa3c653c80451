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


# How a citation of a document outside the repository reads (the team's own notes are not shipped).
_OUTSIDE = re.compile(
    r"\b(?:CONTRACT|RULES|STYLE|ARCHITECTURE)(?:\.md)?\s*§"
    r"|\b(?:CONTRACT|STYLE|ARCHITECTURE)\.md|\bRULES\.md|\.\./shared/"
)
_CODE = [
    path
    for pattern in ("*.py", "*.sh", "*.html", "*.js", "*.yaml", "*.toml")
    for path in ROOT.rglob(pattern)
    if not {".venv", "node_modules", ".git"} & set(path.relative_to(ROOT).parts)
    and path != Path(__file__)
]


def test_code_and_comments_cite_only_documents_in_the_repository():
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in _CODE
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if _OUTSIDE.search(line)
    ]
    assert not found, "\n".join(found[:20])
