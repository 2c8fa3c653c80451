"""Development on one machine: `scripts/start`."""

import os

from config.settings.base import *  # noqa: F401,F403
from config.settings.base import env_bool

DEBUG = env_bool("DJANGO_DEBUG", True)

# /metrics from this machine without a token (scripts/start serves on 127.0.0.1).
METRICS_ALLOWED_IPS = METRICS_ALLOWED_IPS or ["127.0.0.1", "::1"]  # noqa: F405

# New guests per address: 20 an hour on a server (base.py), but a newcomer following the README on
# his own machine takes one guest for "Play now" and five for each quick tour, all from 127.0.0.1.
REST_FRAMEWORK = {  # noqa: F405
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_THROTTLE_RATES": {
        **REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],  # noqa: F405
        "guest": os.environ.get("GUEST_THROTTLE_RATE", "200/hour"),
    },
}
