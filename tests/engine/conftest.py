"""The engine's tests need the engine alone: scripts/test runs them without pytest-django
(`-p no:django`), and then no test here may bring Django, DRF or Celery in."""

import sys

import pytest

FRAMEWORKS = ("django", "rest_framework", "celery")


@pytest.fixture(autouse=True)
def _engine_alone(request):
    yield
    if request.config.pluginmanager.has_plugin("django"):
        return  # a run of the whole suite has Django loaded by its other tests
    loaded = sorted(name for name in sys.modules if name.split(".")[0] in FRAMEWORKS)
    assert loaded == [], f"an engine test imported {loaded[:5]}"
