"""config/urls.py lists the games' patterns first (the hot paths): no pattern may shadow another's,
so every API path still reaches the view it names."""

import re

from django.urls import URLPattern, URLResolver, get_resolver, resolve

_SAMPLES = {
    "int": "7",
    "id": "7",  # infra/api/converters.py
    "seat": "3",
    "str": "sample",
    "slug": "sample-1",
    "uuid": "12345678-1234-5678-1234-567812345678",
}


def _api_patterns():
    api = next(p for p in get_resolver().url_patterns if str(p.pattern) == "api/v1/")

    def walk(patterns, prefix):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                yield prefix + str(pattern.pattern), pattern

    return list(walk(api.url_patterns, "/api/v1/"))


def test_every_api_path_resolves_to_its_own_view():
    patterns = _api_patterns()
    assert len(patterns) > 30
    for route, pattern in patterns:
        path = re.sub(r"<(?:(\w+):)?\w+>", lambda m: _SAMPLES[m.group(1) or "str"], route)
        match = resolve(path)
        assert match.url_name == pattern.name, (route, path, match.url_name)


def test_the_move_and_the_log_are_tried_first():
    names = [pattern.name for _, pattern in _api_patterns()]
    assert names.index("game-actions") < 8
    assert names.index("game-actions") < min(names.index("auth-register"), names.index("table-create"))
