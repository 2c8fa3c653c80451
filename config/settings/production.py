"""Production: every secret and address comes from the environment."""

import os

from config.settings.base import *  # noqa: F401,F403
from infra.logs import logging_config

SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]
DEBUG = False
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True

# A log pipeline reads JSON lines; INFO keeps one access line per request.
LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO")
LOG_FORMAT = os.environ.get("LOG_FORMAT", "json")
LOGGING = logging_config(level=LOG_LEVEL, fmt=LOG_FORMAT)
