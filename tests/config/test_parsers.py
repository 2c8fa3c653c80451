"""infra/api/parsers.py: the nesting measure, without a database."""

import json

import pytest

from infra.api.parsers import json_nesting_exceeds


def _nested(depth: int, open_="[", close="]") -> bytes:
    return (open_ * depth + close * depth).encode()


@pytest.mark.parametrize("depth", [0, 1, 5, 32])
def test_documents_at_or_under_the_limit_pass(depth):
    assert not json_nesting_exceeds(_nested(depth), limit=32)


@pytest.mark.parametrize("depth", [33, 100, 3000, 100_000])
def test_deeper_documents_are_caught(depth):
    assert json_nesting_exceeds(_nested(depth), limit=32)


def test_objects_and_arrays_count_alike():
    doc = json.dumps({"a": [{"b": [[{"c": 1}]]}]}).encode()  # depth 6
    assert not json_nesting_exceeds(doc, limit=6)
    assert json_nesting_exceeds(doc, limit=5)


def test_brackets_inside_strings_do_not_count():
    doc = json.dumps({"text": "[" * 500 + '\\"' + "{" * 500}).encode()
    assert not json_nesting_exceeds(doc, limit=2)


def test_wide_documents_are_not_deep():
    doc = json.dumps([[i] for i in range(10_000)]).encode()
    assert not json_nesting_exceeds(doc, limit=2)
    assert json_nesting_exceeds(doc, limit=1)


def test_unbalanced_brackets_are_left_to_the_json_parser():
    assert not json_nesting_exceeds(b"[}", limit=32)
