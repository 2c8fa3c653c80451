"""pytest: PostgreSQL when DATABASE_URL is set (scripts/test sets it), else SQLite."""

import os

from config.settings.base import *  # noqa: F401,F403
from config.settings.base import REST_FRAMEWORK

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {
        "auth": "100000/min",
        "guest": "100000/min",
        "reports": "100000/min",
        "tables": "100000/min",
        "invites": "100000/min",
        "hints": "100000/min",
    },
}
BENCH_ENDPOINTS = True
# Tasks that tests trigger on commit go nowhere unless a broker is named: the real-worker tests
# (tests/games/test_worker.py) point the app at Redis themselves.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "memory://")
# The broker URL's scheme names the transport (base.py's filesystem transport class does not apply).
CELERY_BROKER_TRANSPORT = None
if CELERY_BROKER_URL == "memory://":
    CELERY_BROKER_TRANSPORT_OPTIONS = {}
