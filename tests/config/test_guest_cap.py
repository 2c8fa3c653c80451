"""New guests per address (the `guest` throttle, docs/deploy.md): production keeps its cap, while the
development settings that `scripts/start` runs let a newcomer follow the README (Play now, then a few
quick tours of five guests each) without meeting `429 throttled`."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README_GUESTS = 1 + 4 * 5  # "Play now" takes one guest; each quick tour five


def _guest_rate(module: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "GUEST_THROTTLE_RATE"}
    env.update({"DJANGO_SETTINGS_MODULE": module, "DJANGO_SECRET_KEY": "x" * 50, "PYTHONPATH": str(ROOT)})
    code = "from django.conf import settings as s; print(s.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']['guest'])"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _per_hour(rate: str) -> float:
    count, period = rate.split("/")
    return int(count) * {"s": 3600, "m": 60, "h": 1, "d": 1 / 24}[period[0]]


def test_production_keeps_twenty_guests_an_hour():
    assert _per_hour(_guest_rate("config.settings.production")) == 20


@pytest.mark.parametrize("module", ["config.settings.local"])
def test_the_development_settings_let_the_readme_be_followed_more_than_once(module):
    assert _per_hour(_guest_rate(module)) >= 3 * README_GUESTS
