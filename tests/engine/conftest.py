"""The engine's tests need the engine alone: scripts/test runs them without pytest-django
(`-p no:django`), and then no test here may bring Django, DRF or Celery in."""

import os
import sys

import pytest
from hypothesis import settings

# The property tests draw the same examples every run (as tests/api/test_fuzz.py does): a suite
# that passes keeps passing, and a counterexample found by exploring becomes a test of its own
# (test_listing.py's campus seed). Explore new examples with HYPOTHESIS_PROFILE=explore.
settings.register_profile("deterministic", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))

FRAMEWORKS = ("django", "rest_framework", "celery")


@pytest.fixture(autouse=True)
def _engine_alone(request):
    yield
    if request.config.pluginmanager.has_plugin("django"):
        return  # a run of the whole suite has Django loaded by its other tests
    loaded = sorted(name for name in sys.modules if name.split(".")[0] in FRAMEWORKS)
    assert loaded == [], f"an engine test imported {loaded[:5]}"
