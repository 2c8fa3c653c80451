"""Development on one machine: `scripts/start`."""

from config.settings.base import *  # noqa: F401,F403
from config.settings.base import env_bool

DEBUG = env_bool("DJANGO_DEBUG", True)
