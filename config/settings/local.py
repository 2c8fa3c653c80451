"""Development on one machine: `scripts/start`."""

from config.settings.base import *  # noqa: F401,F403
from config.settings.base import env_bool

DEBUG = env_bool("DJANGO_DEBUG", True)

# /metrics from this machine without a token (scripts/start serves on 127.0.0.1).
METRICS_ALLOWED_IPS = METRICS_ALLOWED_IPS or ["127.0.0.1", "::1"]  # noqa: F405
