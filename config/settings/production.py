"""Production: every secret and address comes from the environment."""

import os

from config.settings.base import *  # noqa: F401,F403
from config.settings.base import env_bool
from infra.logs import logging_config

SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]
DEBUG = False
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
# HSTS (docs/deploy.md "HTTPS"): on every answer to a request that came over https, which the
# proxy states in X-Forwarded-Proto (deploy/nginx.conf sets it, replacing the client's), the browser
# is told to use https alone for this host for a year, so the client's token never crosses plain
# http. Not for subdomains, and no preload list, unless the deployment opts in: both bind hosts and
# a time this service does not own.
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(365 * 24 * 3600)))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)

# A log pipeline reads JSON lines; INFO keeps one access line per request.
LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO")
LOG_FORMAT = os.environ.get("LOG_FORMAT", "json")
LOGGING = logging_config(level=LOG_LEVEL, fmt=LOG_FORMAT)
