"""pytest: PostgreSQL when DATABASE_URL is set (scripts/test sets it), else SQLite."""

from config.settings.base import *  # noqa: F401,F403
from config.settings.base import REST_FRAMEWORK

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"auth": "100000/min"}}
BENCH_ENDPOINTS = True
