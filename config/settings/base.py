"""Settings shared by every environment; everything that differs comes from the environment."""

import os
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from infra.logs import logging_config

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "insecure-development-key-change-me")
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = [h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost").split(",") if h]

INSTALLED_APPS = [
    # Django's admin on the project's site (config/admin_site.py).
    "config.apps.AdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    # Swagger UI and ReDoc served from the package, so /api/docs/ works offline.
    "drf_spectacular_sidecar",
    "auditlog",
    # Device tokens for APNs, FCM and Web Push, and their clients (accounts/push, docs/notifications.md).
    "push_notifications",
    "accounts",
    "accounts.push",
    "matchmaking",
    "games",
    # Tournaments: rounds of tables, Swiss and duplicate boards (docs/tournaments.md).
    "tournaments",
    # The browser client at / (docs/web-client.md).
    "web",
    # The pages' Content-Security-Policy (CONTENT_SECURITY_POLICY below).
    "csp",
]

MIDDLEWARE = [
    # Request id and access log, request metrics, then probes and /metrics answered before the Host
    # check (infra/operator_paths.py).
    "infra.request_context.request_context_middleware",
    "infra.metrics_middleware.request_metrics_middleware",
    "infra.operator_paths.operator_paths_middleware",
    # Compression of every answer but the secret-bearing ones (infra/api/compression.py,
    # docs/security.md "Compression and BREACH"); above whatever writes a body, WhiteNoise's included.
    "infra.api.compression.ApiGZipMiddleware",
    # `ETag` on every GET answer and `304` for a matching `If-None-Match` (a view may set its own
    # ETag, as the finished deal's answers do from the version); below the compression, so that the
    # ETag is the body's, not the compressed bytes'.
    "django.middleware.http.ConditionalGetMiddleware",
    # The API's headers: its version on every answer, the pages' headers off the JSON
    # (infra/api/edge_headers.py).
    "infra.api.edge_headers.api_headers_middleware",
    # JSON error bodies under /api/ even with DEBUG on (infra/api/error_pages.py).
    "infra.api.error_pages.api_error_pages_middleware",
    "django.middleware.security.SecurityMiddleware",
    # Content-Security-Policy on the pages, not on the JSON API (CONTENT_SECURITY_POLICY below).
    "csp.middleware.CSPMiddleware",
    # Static files (the web client, the admin, the API docs pages) from the process itself, in every
    # role: no collectstatic step, no proxy rule (WHITENOISE_USE_FINDERS below).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language: the session's or cookie's choice (the client's switch), else Accept-Language;
    # it translates the pages and the API's error messages, never their codes (docs/web-client.md).
    "django.middleware.locale.LocaleMiddleware",
    # An app below API_MIN_CLIENT_VERSION is told to update (infra/api/client_version.py); after the
    # language, so that the refusal reads in the app's.
    "infra.api.client_version.client_version_middleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Names the signed-in admin user as the actor of model history entries (django-auditlog).
    "accounts.audit.auditlog_admin_middleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # config/templates: the API docs pages (config/urls.py).
        "DIRS": [BASE_DIR / "config" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


def database_config() -> dict:
    url = os.environ.get("DATABASE_URL")
    if url:
        config = dj_database_url.parse(url, conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "0")))
        pool_size = int(os.environ.get("DB_POOL_MAX_SIZE", "0"))
        if pool_size and config["ENGINE"].endswith("postgresql"):
            # A pool (psycopg_pool, Django >= 5.1) per process saves a connection setup per request,
            # whichever thread serves it. While PostgreSQL is down, the pool's attempts to connect
            # back off (1, 2, 4, 8 s …); `reconnect_timeout` gives an attempt up after 2 s, and the
            # next request starts a new one at once, so no attempt is left seconds away when the
            # database returns. A pooled connection that the restart broke fails the one request
            # that draws it (503 with Retry-After, infra/api/busy.py) and is thrown away. Checking
            # each connection as it is handed out (CONN_HEALTH_CHECKS) was measured in
            # tests/faults and not taken: it costs a round trip per request, and psycopg_pool backs
            # off (1, 2, 4 s) between failed checks, so a request that drew several dead connections
            # waited seconds and play resumed later (docs/deploy.md "What happens when …").
            # A request waits up to `timeout` for a connection, then is answered 503.
            config.setdefault("OPTIONS", {})["pool"] = {
                "min_size": 1,
                "max_size": pool_size,
                "timeout": 10,
                "reconnect_timeout": 2,
            }
        return config
    # SQLite ignores select_for_update, so every transaction takes the write lock up front instead
    # (docs/architecture.md "Processes": the embedded default).
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(VAR_DIR / "db.sqlite3"),
        "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20},
    }


DATABASES = {"default": database_config()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
# The project's own catalogue (config/locale/zh_Hans/LC_MESSAGES/django.po and its compiled .mo,
# both committed; tests/web/test_i18n.py checks the .mo is current). Django's own strings come
# with Django.
LOCALE_PATHS = [BASE_DIR / "config" / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# The API docs pages' stylesheet (config/templates/api/).
STATICFILES_DIRS = [BASE_DIR / "config" / "static"]
# No STATIC_ROOT: nothing is collected. WhiteNoise indexes the apps' static folders (in the installed
# packages) once at start-up, so every role serves the same files with nothing to run first.
WHITENOISE_USE_FINDERS = True
WHITENOISE_MAX_AGE = int(os.environ.get("STATIC_MAX_AGE", "3600"))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.authentication.BearerTokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "accounts.permissions.IsNotBanned",
        # The token's scopes against the endpoint's (infra/api/endpoint_scopes.py).
        "accounts.permissions.EndpointScope",
    ],
    "DEFAULT_RENDERER_CLASSES": ["infra.api.renderers.ORJSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["infra.api.parsers.GuardedJSONParser"],
    "DEFAULT_SCHEMA_CLASS": "infra.api.schema.ApiAutoSchema",
    "EXCEPTION_HANDLER": "infra.api.handler.api_exception_handler",
    "DEFAULT_THROTTLE_RATES": {
        "auth": os.environ.get("AUTH_THROTTLE_RATE", "30/min"),
        "guest": os.environ.get("GUEST_THROTTLE_RATE", "20/hour"),
        "reports": os.environ.get("REPORTS_THROTTLE_RATE", "20/hour"),
        # `POST tables` per user (matchmaking/apis.py TableCreateThrottle); staff are not throttled.
        "tables": os.environ.get("TABLES_THROTTLE_RATE", "10/hour"),
        # `POST tables/{id}/invites` per user (matchmaking/invitation_apis.py): each buzzes a phone.
        "invites": os.environ.get("INVITES_THROTTLE_RATE", "30/hour"),
        # `GET games/{id}/hint` per user (games/apis.py GameHintThrottle): each runs the bot.
        "hints": os.environ.get("HINTS_THROTTLE_RATE", "60/min"),
    },
    # Trusted reverse proxies in front of the web process: 0 (default) keys rate limits on the socket
    # address and ignores X-Forwarded-For, which a client can write itself.
    "NUM_PROXIES": int(os.environ.get("NUM_PROXIES", "0")),
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "baohuang-server API",
    "DESCRIPTION": (
        "HTTP API v1 of the Bao Huang (保皇) game service. Errors always have the body "
        '`{"code", "message", "extra"}` (the `Error` schema); field errors are '
        "`extra.fields.<name>: [messages]`. The flow from the lobby to the final view is described in "
        "docs/client-guide.md of the repository, the rules of each preset in docs/rules.md."
    ),
    # The API version (docs/changelog.md): docs/openapi.yaml is this schema, regenerated by scripts/schema.
    "VERSION": "1.7.0",
    # OpenAPI 3.1: a nullable reference is `oneOf: [{$ref}, {type: 'null'}]`, which strict validators
    # and generators read as written; 3.0's `nullable` beside `allOf` is ignored by them.
    "OAS_VERSION": "3.1.0",
    "LICENSE": {"name": "MIT", "identifier": "MIT"},
    "CONTACT": {"name": "baohuang-server maintainers"},
    # Relative: the host that serves this document (the deployment's own, docs/deploy.md).
    "SERVERS": [{"url": "/", "description": "The host that serves this schema."}],
    "TAGS": [
        {"name": "auth", "description": "Accounts, sign-in and tokens (docs/client-guide.md §1)."},
        {"name": "me", "description": "The signed-in user: profile, feed, tables and tickets, data."},
        {"name": "tables", "description": "Tables: create, list, join, leave, follow."},
        {"name": "matchmaking", "description": "The queue: tickets and their state."},
        {"name": "games", "description": "A deal: views, actions, its log, the final view."},
        {"name": "ratings", "description": "Ratings and the leaderboard."},
        {"name": "users", "description": "A player's public games and penalties."},
        {"name": "moderation", "description": "Reports, sanctions and the audit (staff)."},
        {"name": "bots", "description": "Bot accounts of integrators (staff)."},
        {"name": "webhooks", "description": "Signed deliveries of table and game events."},
        {
            "name": "notifications",
            "description": "Devices for push, preferences and the inbox (docs/notifications.md).",
        },
        {"name": "tournaments", "description": "Entries, rounds and standings (docs/tournaments.md)."},
    ],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "infra.api.schema_hooks.complete_operations",
    ],
    # No validator badge: Swagger UI would otherwise load it from validator.swagger.io, handing that
    # host the schema's address, and the pages' policy (CONTENT_SECURITY_POLICY) refuses other hosts.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": "games.models.GameStatus",
        "TableStatusEnum": "matchmaking.models.TableStatus",
        "TicketStatusEnum": "matchmaking.models.TicketStatus",
        "TournamentStatusEnum": "tournaments.models.TournamentStatus",
        "RoundStatusEnum": "tournaments.models.RoundStatus",
        "ReportStatusEnum": "matchmaking.models.ReportStatus",
        "ReportReasonEnum": "matchmaking.models.ReportReason",
        "PenaltyReasonEnum": "matchmaking.models.PenaltyReason",
        "SanctionKindEnum": "accounts.models.SanctionKind",
        "ModerationActionKindEnum": "accounts.models.ModerationActionKind",
        "TokenKindEnum": "accounts.models.TokenKind",
        "TableEventTypeEnum": "matchmaking.event_apis.TABLE_EVENT_TYPES",
        "ActionTypeEnum": "games.view_serializers.ACTION_TYPES",
        "WindowKindEnum": "games.view_serializers.WINDOW_KINDS",
        "GamePhaseEnum": "games.view_serializers.PHASES",
        "SeatRoleEnum": "games.view_serializers.SEAT_ROLES",
        "DeclarationTypeEnum": "games.view_serializers.DECLARATION_TYPES",
        # `type` of the events that both a game or table log and the feed carry.
        "DealStartedTypeEnum": ["deal_started"],
        "DealOverTypeEnum": ["deal_over"],
        "TableClosedTypeEnum": ["table_closed"],
        "FeedTableClosedReasonEnum": "accounts.feed_apis.TABLE_CLOSED_REASONS",
        "TimeoutEventTypeEnum": ["timeout"],
        "TrusteeEventTypeEnum": ["trustee"],
        "FeedEventTypeEnum": "accounts.feed_apis.FEED_EVENT_TYPES",
        # A second `outcome` field (report_outcome) would rename the timeout entry's enum: both named.
        "OutcomeEnum": ["answered", "trustee"],
        "ReportOutcomeEnum": "accounts.feed_apis.REPORT_OUTCOMES",
        "TableClosedReasonEnum": "matchmaking.models.TableClosedReason",
        "WebhookEventEnum": "accounts.webhooks.models.WebhookEvent",
        "WebhookMessageStatusEnum": "accounts.webhooks.models.MessageStatus",
        "TokenScopeEnum": "accounts.scopes.Scope",
    },
    "AUTHENTICATION_WHITELIST": ["accounts.authentication.BearerTokenAuthentication"],
}

# Celery (config/celery.py). Without a broker URL, kombu's filesystem transport keeps a newcomer's
# machine free of servers.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    # The folders have no host; naming one spares the "No hostname was supplied" warning kombu would
    # print at every start.
    CELERY_BROKER_URL = "filesystem://localhost/"
    # kombu's transport with atomic writes: its own can hand a worker a half-written message.
    CELERY_BROKER_TRANSPORT = "infra.filesystem_broker:Transport"
    _celery_dir = VAR_DIR / "celery"
    for _sub in ("queue", "processed", "staging"):
        (_celery_dir / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_celery_dir / "queue"),
        "data_folder_out": str(_celery_dir / "queue"),
        "processed_folder": str(_celery_dir / "processed"),
        # Exchange tables; kombu's default is ./control in the current directory.
        "control_folder": str(_celery_dir / "control"),
        "store_processed": False,
        # The worker polls the folder; a deadline fires at most this late on the embedded default.
        "polling_interval": 0.1,
    }
elif CELERY_BROKER_URL.startswith("redis"):
    # An unacknowledged task (acks_late) whose worker died comes back after this; timers waiting for
    # their ETA are unacknowledged too, so it must exceed the longest deadline. The sweep does not wait.
    # A broker that does not answer costs a request that sends a task at most about a second: the
    # send is logged and skipped, and the beat sweep makes up for it (docs/deploy.md).
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": 3600,
        "socket_connect_timeout": 1,
        "socket_timeout": 2,
    }
CELERY_BROKER_CONNECTION_TIMEOUT = 1
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_TASK_ALWAYS_EAGER = False
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Celery's Django fixup would close every database connection around every task; this keeps it from
# doing so (it closes them after this many tasks), and infra/celery_signals.py applies Django's own
# CONN_MAX_AGE rule around each task instead.
CELERY_DB_REUSE_MAX = 10**9
# Timers (games/timers.py: one deadline task in flight per deal): beat runs the sweep every
# GAMES_SWEEP_SECONDS; it applies deadlines that passed more than GAMES_SWEEP_GRACE seconds ago,
# leaving the on-time ones to their task. A task overdue by that much counts as lost and is replaced.
GAMES_SWEEP_SECONDS = float(os.environ.get("GAMES_SWEEP_SECONDS", "2"))
GAMES_SWEEP_GRACE = float(os.environ.get("GAMES_SWEEP_GRACE", "2"))
# Timers that did not run for this many seconds (worker or beat stopped, database unreachable) were
# out: when they resume, running deals' deadlines move on by the time lost (games/clock.py).
GAMES_OUTAGE_AFTER = float(os.environ.get("GAMES_OUTAGE_AFTER", "10"))
# The answers stored for `Idempotency-Key` (infra/api/idempotency.py) and how long a key is kept: a retry
# within this many hours replays the answer, a later one with the key is a new request
# (docs/client-guide.md §6).
IDEMPOTENCY_KEY_MODEL = "games.IdempotencyKey"
# Version signals (docs/changelog.md "Versions and deprecation", docs/deploy.md "Minimum client version").
# An app sending `X-Client-Version` below API_MIN_CLIENT_VERSION is answered 426 upgrade_required with
# API_CLIENT_UPGRADE_URL (the store page) in `extra`; empty: no minimum.
API_MIN_CLIENT_VERSION = os.environ.get("API_MIN_CLIENT_VERSION", "")
if API_MIN_CLIENT_VERSION:
    from packaging.version import Version

    Version(API_MIN_CLIENT_VERSION)  # a minimum that is no version stops the start, not every request
API_CLIENT_UPGRADE_URL = os.environ.get("API_CLIENT_UPGRADE_URL", "https://example.invalid/update-the-app")
# How long a deprecated operation keeps working after its notice, and a major version's predecessor
# after the major: the `Sunset` of a deprecated operation is its notice plus this many months.
API_SUPPORT_WINDOW_MONTHS = int(os.environ.get("API_SUPPORT_WINDOW_MONTHS", "24"))
IDEMPOTENCY_KEY_RETENTION_HOURS = float(os.environ.get("IDEMPOTENCY_KEY_RETENTION_HOURS", "24"))
CELERY_BEAT_SCHEDULE = {
    "games-deadlines-sweep": {
        "task": "games.games_deadlines_sweep",
        "schedule": GAMES_SWEEP_SECONDS,
        # A sweep that could not run in time is superseded by the next one.
        "options": {"expires": GAMES_SWEEP_SECONDS},
    },
    # Bot seats whose task was lost (games.services.games_bots_sweep): they act, not their deadline.
    "games-bots-sweep": {
        "task": "games.games_bots_sweep",
        "schedule": GAMES_SWEEP_SECONDS,
        "options": {"expires": GAMES_SWEEP_SECONDS},
    },
    # Idempotency-Key answers older than IDEMPOTENCY_KEY_RETENTION_HOURS (infra/api/idempotency.py).
    "games-idempotency-keys-sweep": {
        "task": "games.idempotency_keys_sweep",
        "schedule": 600.0,
        "options": {"expires": 600},
    },
    # Deals whose rating task was lost (games.services.games_ratings_sweep).
    "games-ratings-sweep": {
        "task": "games.games_ratings_sweep",
        "schedule": 60.0,
        "options": {"expires": 60},
    },
}

# Connections each process's Redis clients (the cache, wake-up publishing) open at most.
REDIS_MAX_CONNECTIONS = int(os.environ.get("REDIS_MAX_CONNECTIONS", "64"))
# Rate-limit counters (accounts/throttles.py) must be shared by every web process: Redis when
# REDIS_URL is set, else this process's memory (one process on a newcomer's machine).
# "local" is this process's own: the throttles count there while Redis is down (accounts/throttles.py).
_LOCAL_CACHE = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "local"}
if os.environ.get("REDIS_URL"):
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            "KEY_PREFIX": "bh",
            "OPTIONS": {
                # A request thread waits for a free connection rather than fail: redis-py's default
                # pool raises "Too many connections" past 100 at once, which a burst of clients
                # opening their streams together reached.
                "CONNECTION_POOL_CLASS": "redis.BlockingConnectionPool",
                "CONNECTION_POOL_KWARGS": {"max_connections": REDIS_MAX_CONNECTIONS, "timeout": 5},
                # Redis is an accelerator: a Redis that does not answer costs a request at most this,
                # then the token lookup goes to the database and the throttles count locally.
                "SOCKET_CONNECT_TIMEOUT": 0.5,
                "SOCKET_TIMEOUT": 1.0,
            },
        },
        "local": _LOCAL_CACHE,
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}, "local": _LOCAL_CACHE}

# Bearer-token lookups kept this long in the shared cache (accounts/token_cache.py); only with Redis,
# the one cache every process shares. 0 turns it off.
AUTH_TOKEN_CACHE_SECONDS = int(
    os.environ.get("AUTH_TOKEN_CACHE_SECONDS", "300" if os.environ.get("REDIS_URL") else "0")
)
# And this long in each process's memo of that cache (accounts/token_memo.py), which every process
# tells to forget a token over Redis the moment it is revoked; 0 turns the memo off.
AUTH_TOKEN_MEMO_SECONDS = float(os.environ.get("AUTH_TOKEN_MEMO_SECONDS", "30"))

# Account safety (docs/moderation.md).
TOKEN_TTL_DAYS = float(os.environ.get("TOKEN_TTL_DAYS", "30"))
LOGIN_FAILURES_MAX = int(os.environ.get("LOGIN_FAILURES_MAX", "10"))
LOGIN_FAILURES_WINDOW_SECONDS = int(os.environ.get("LOGIN_FAILURES_WINDOW_SECONDS", "900"))
# The API's JSON bodies (infra/api/parsers.py); the largest legitimate one, a staff table with
# fixed hands, is a few kilobytes.
API_MAX_BODY_BYTES = int(os.environ.get("API_MAX_BODY_BYTES", str(64 * 1024)))
API_MAX_JSON_DEPTH = int(os.environ.get("API_MAX_JSON_DEPTH", "32"))
# The largest body the web role reads and discards when it answered without reading it, so that
# the connection carries the next request (infra/request_body.py). A proxy in front must not forward
# larger bodies: deploy/nginx.conf's client_max_body_size is the API's own limit, well below this.
REQUEST_DRAIN_MAX_BYTES = int(os.environ.get("REQUEST_DRAIN_MAX_BYTES", str(1024 * 1024)))

# Long-poll wake-ups (infra/wakeups.py). Without Redis, waiters re-read the database every
# EVENTS_POLL_INTERVAL seconds.
REDIS_URL = os.environ.get("REDIS_URL") or None
EVENTS_POLL_INTERVAL = float(os.environ.get("EVENTS_POLL_INTERVAL", "0.5"))
EVENTS_MAX_WAIT = 30
# The streams (`Accept: text/event-stream` on me/events and games/{id}/events, events/streams.py): a
# comment line this often when quiet; the reader's token checked and the log read again at least
# this often (a revocation, a ban or leaving a table is published and ends a stream at once; this
# bounds what a lost wake-up costs); a stream ends after this long.
EVENTS_SSE_KEEPALIVE = float(os.environ.get("EVENTS_SSE_KEEPALIVE", "15"))
EVENTS_SSE_CHECK_SECONDS = float(os.environ.get("EVENTS_SSE_CHECK_SECONDS", "60"))
EVENTS_SSE_MAX_SECONDS = float(os.environ.get("EVENTS_SSE_MAX_SECONDS", "300"))
# Per user and event-server process (events/caps.py): open streams (a new one closes his oldest) and
# waiting long-polls (one more is `429 throttled`). A client follows its feed and its deal: two.
EVENTS_MAX_STREAMS_PER_USER = int(os.environ.get("EVENTS_MAX_STREAMS_PER_USER", "8"))
EVENTS_MAX_LONG_POLLS_PER_USER = int(os.environ.get("EVENTS_MAX_LONG_POLLS_PER_USER", "16"))

# Bots (docs/matchmaking.md): a prompted bot seat acts this many seconds after the prompt, at this level.
BOTS_DELAY_SECONDS = float(os.environ.get("BOTS_DELAY_SECONDS", "1"))
# easy, normal or hard (docs/bots.md); a table or ticket may ask for its own (`bot_level`).
BOTS_LEVEL = os.environ.get("BOTS_LEVEL", "normal")
if BOTS_LEVEL not in ("easy", "normal", "hard"):
    raise ImproperlyConfigured(f"BOTS_LEVEL must be easy, normal or hard, not {BOTS_LEVEL!r}")

# Rated deals (docs/matchmaking.md "Rated deals", games.selectors.game_unrated_reason): a scored deal
# is rated only when at least RATING_MIN_PLAYED_SEATS of its five seats were played: by a bot account,
# or by an account RATING_MIN_ACCOUNT_AGE_HOURS old when the deal began; either way with at most
# RATING_MAX_TRUSTEE_SHARE of the seat's actions taken on 托管.
RATING_MIN_PLAYED_SEATS = int(os.environ.get("RATING_MIN_PLAYED_SEATS", "3"))
RATING_MIN_ACCOUNT_AGE_HOURS = float(os.environ.get("RATING_MIN_ACCOUNT_AGE_HOURS", "24"))
RATING_MAX_TRUSTEE_SHARE = float(os.environ.get("RATING_MAX_TRUSTEE_SHARE", "0.5"))
if not 0 <= RATING_MIN_PLAYED_SEATS <= 5:
    raise ImproperlyConfigured(f"RATING_MIN_PLAYED_SEATS must be 0 to 5, not {RATING_MIN_PLAYED_SEATS}")

# /api/v1/_bench/... exists only when this is set (bench/api_moves.py).
BENCH_ENDPOINTS = env_bool("BENCH_ENDPOINTS", False)

# Logs (infra/logs.py): `text` for people, `json` (one object per line) for a log pipeline.
LOG_LEVEL = os.environ.get("LOG_LEVEL", "WARNING")
LOG_FORMAT = os.environ.get("LOG_FORMAT", "text")
LOGGING = logging_config(level=LOG_LEVEL, fmt=LOG_FORMAT)

# Probes (infra/health.py): what /readyz checks (comma-separated; empty: all of them), and how long
# each check may take.
READYZ_CHECKS = [c.strip() for c in os.environ.get("READYZ_CHECKS", "").split(",") if c.strip()] or None
READYZ_TIMEOUT = float(os.environ.get("READYZ_TIMEOUT", "1.5"))

# /metrics (infra/metrics_view.py): allowed with this bearer token or from these addresses/networks.
# Neither set: refused to everyone.
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")
METRICS_ALLOWED_IPS = [a.strip() for a in os.environ.get("METRICS_ALLOWED_IPS", "").split(",") if a.strip()]

# Tables a player created that may be waiting for players at once (matchmaking/services.py
# `table_create_in_lobby`), among those he created in the last TABLES_OPEN_HOURS: a waiting table
# does not expire, and an honest creator whose tables nobody joined is not locked out for good.
TABLES_OPEN_PER_USER = int(os.environ.get("TABLES_OPEN_PER_USER", "3"))
TABLES_OPEN_HOURS = int(os.environ.get("TABLES_OPEN_HOURS", "24"))

# Quick-match tickets (docs/matchmaking.md, docs/matchmaking.md). The matcher runs on beat every
# MATCHMAKING_INTERVAL seconds; a waiting ticket not polled for MATCHMAKING_TICKET_TTL seconds expires;
# one waiting MATCHMAKING_BOTS_AFTER seconds (with `bots`) is seated with bots. Five rated tickets sit
# together when their ordinals span at most SPREAD_BASE + SPREAD_PER_SECOND x (the oldest one's wait).
# A party is seated once no member joined it for MATCHMAKING_PARTY_GATHER seconds (or it has four).
MATCHMAKING_INTERVAL = float(os.environ.get("MATCHMAKING_INTERVAL", "1"))
MATCHMAKING_TICKET_TTL = float(os.environ.get("MATCHMAKING_TICKET_TTL", "60"))
MATCHMAKING_BOTS_AFTER = float(os.environ.get("MATCHMAKING_BOTS_AFTER", "20"))
MATCHMAKING_SPREAD_BASE = float(os.environ.get("MATCHMAKING_SPREAD_BASE", "5"))
MATCHMAKING_SPREAD_PER_SECOND = float(os.environ.get("MATCHMAKING_SPREAD_PER_SECOND", "0.5"))
MATCHMAKING_PARTY_GATHER = float(os.environ.get("MATCHMAKING_PARTY_GATHER", "10"))
# The end of a deal (docs/architecture.md "The end of a deal"): games sends this task, by name, after
# the commit that finished a deal; the table's beat sweep takes any finished deal or due next deal
# whose task was lost, every GAMES_SWEEP_SECONDS.
GAMES_DEAL_END_TASK = "matchmaking.table_deal_end"
CELERY_BEAT_SCHEDULE["matchmaking-tables-deals-sweep"] = {
    "task": "matchmaking.tables_deals_sweep",
    "schedule": GAMES_SWEEP_SECONDS,
    "options": {"expires": GAMES_SWEEP_SECONDS},
}
CELERY_BEAT_SCHEDULE["matchmaking-tickets-match"] = {
    "task": "matchmaking.tickets_match",
    "schedule": MATCHMAKING_INTERVAL,
    # A run that could not start in time is superseded by the next one.
    "options": {"expires": MATCHMAKING_INTERVAL},
}

# Webhooks (docs/integrations.md, docs/integrations.md). Retries: seconds after each failed attempt.
WEBHOOK_RETRY_SCHEDULE = [
    float(step)
    for step in os.environ.get("WEBHOOK_RETRY_SCHEDULE", "5,300,1800,7200,18000,36000").split(",")
    if step.strip()
]
# http and private/loopback addresses: for development and tests only (SSRF otherwise).
WEBHOOK_ALLOW_PRIVATE = env_bool("WEBHOOK_ALLOW_PRIVATE", False)
WEBHOOK_TIMEOUT_SECONDS = float(os.environ.get("WEBHOOK_TIMEOUT_SECONDS", "5"))
# An attempt under way holds its message this long; a worker that died mid-attempt is resent after it.
WEBHOOK_LEASE_SECONDS = float(os.environ.get("WEBHOOK_LEASE_SECONDS", "60"))
WEBHOOK_SWEEP_SECONDS = float(os.environ.get("WEBHOOK_SWEEP_SECONDS", "30"))
WEBHOOK_SWEEP_GRACE = float(os.environ.get("WEBHOOK_SWEEP_GRACE", "10"))
# Failed attempts in a row (across messages) after which a webhook is disabled.
WEBHOOK_DISABLE_AFTER = int(os.environ.get("WEBHOOK_DISABLE_AFTER", "20"))
WEBHOOKS_PER_USER = int(os.environ.get("WEBHOOKS_PER_USER", "10"))
CELERY_BEAT_SCHEDULE["webhooks-sweep"] = {
    "task": "accounts.webhooks_sweep",
    "schedule": WEBHOOK_SWEEP_SECONDS,
    "options": {"expires": WEBHOOK_SWEEP_SECONDS},
}

# Tournaments (docs/tournaments.md "Steps"): beat steps every running tournament and every one whose
# `starts_at` has come this often; a closing tournament table also sends its tournament's step at once.
TOURNAMENTS_SWEEP_SECONDS = float(os.environ.get("TOURNAMENTS_SWEEP_SECONDS", "10"))
CELERY_BEAT_SCHEDULE["tournaments-sweep"] = {
    "task": "tournaments.sweep",
    "schedule": TOURNAMENTS_SWEEP_SECONDS,
    "options": {"expires": TOURNAMENTS_SWEEP_SECONDS},
}

# Personal access tokens (docs/integrations.md): lifetime when `expires_in_days` is not given, and the
# longest.
PERSONAL_TOKEN_DEFAULT_DAYS = int(os.environ.get("PERSONAL_TOKEN_DEFAULT_DAYS", "90"))
PERSONAL_TOKEN_MAX_DAYS = int(os.environ.get("PERSONAL_TOKEN_MAX_DAYS", "366"))
# Personal access tokens that still work, per user (`POST auth/tokens`; `GET auth/tokens` lists
# them all on one page).
PERSONAL_TOKENS_PER_USER = int(os.environ.get("PERSONAL_TOKENS_PER_USER", "20"))

# OAuth 2 for third-party apps (django-oauth-toolkit, under /o/): authorization code with PKCE, the
# same scopes as personal access tokens. The consent page needs a signed-in session: /o/login/.
INSTALLED_APPS.append("oauth2_provider")
LOGIN_URL = "oauth-login"
LOGIN_REDIRECT_URL = "oauth2_provider:list"
OAUTH2_PROVIDER = {
    "SCOPES": {
        # Shown on the consent page, in the reader's language (config/locale).
        "read": _("Read everything you can see"),
        "play": _("Play your games, join and leave tables, take tickets"),
        "tables": _("Create tables"),
        "webhooks": _("Manage your webhooks"),
        "tokens": _("List and revoke your personal access tokens, sign out everywhere"),
        "moderation": _("Moderation (staff only)"),
    },
    "DEFAULT_SCOPES": ["read"],
    "PKCE_REQUIRED": True,
    # Only the authorization code grant with PKCE and its refresh tokens, whatever an application row
    # says (docs/integrations.md "OAuth 2", accounts/oauth_grants.py): no password, implicit, client
    # credentials or device grant, and only S256 challenges.
    "OAUTH2_SERVER_CLASS": "accounts.oauth_grants.AuthorizationCodeServer",
    "OAUTH2_VALIDATOR_CLASS": "accounts.oauth_grants.AuthorizationCodeValidator",
    "APPLICATION_ADMIN_CLASS": "accounts.oauth_admin.AuthorizationCodeApplicationAdmin",
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
    "ACCESS_TOKEN_EXPIRE_SECONDS": int(os.environ.get("OAUTH_ACCESS_TOKEN_SECONDS", "3600")),
    "REFRESH_TOKEN_EXPIRE_SECONDS": int(os.environ.get("OAUTH_REFRESH_TOKEN_SECONDS", str(30 * 86400))),
    "ROTATE_REFRESH_TOKEN": True,
    # A NUL in any parameter is a malformed request, not a query PostgreSQL refuses (a 500).
    "OAUTH2_BACKEND_CLASS": "accounts.oauth_backend.NulRefusingOAuthLibCore",
}

# The pages' Content-Security-Policy (django-csp; docs/security.md "Content-Security-Policy"): the web
# client, the admin, the OAuth pages and the API docs run only scripts served by this host, none
# inline (no page has one: the client's data are JSON blocks, drf-spectacular's Swagger UI page loads
# its start script as a file), with no plugin, no <base>, no framing; styles from files alone, but on
# ReDoc's page (config/urls.py). A bearer token in the client's localStorage is then out of reach of
# markup an attacker might slip into a page. The JSON API and the schema are not pages: no policy.
CONTENT_SECURITY_POLICY = {
    "EXCLUDE_URL_PREFIXES": ["/api/v1/", "/api/schema/"],
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        # data: for the icons the admin's and Swagger UI's stylesheets embed, and the client's.
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "frame-ancestors": [NONE],
    },
}

# Off: the feed hands no entry to the push task (a deployment without any push credentials saves the
# task per entry; bench/push.py measures a move without it).
PUSH_ENABLED = env_bool("PUSH_ENABLED", True)
# Push notifications (docs/notifications.md; credentials: docs/deploy.md "Environment variables"). Each
# platform sends only when its credentials are set; a device of a platform without them is kept and
# skipped. django-push-notifications reads PUSH_NOTIFICATIONS_SETTINGS.
# How long one push waits for its service's answer (APNs, FCM, Web Push); then it is retried.
PUSH_TIMEOUT_SECONDS = float(os.environ.get("PUSH_TIMEOUT_SECONDS", "5"))
PUSH_NOTIFICATIONS_SETTINGS = {
    "CONFIG": "push_notifications.conf.LegacyConfig",
    "UNIQUE_REG_ID": False,  # one token, one user: accounts/push/devices.py moves it
    "APNS_AUTH_KEY_PATH": os.environ.get("APNS_AUTH_KEY_PATH") or None,
    "APNS_AUTH_KEY_ID": os.environ.get("APNS_AUTH_KEY_ID") or None,
    "APNS_TEAM_ID": os.environ.get("APNS_TEAM_ID") or None,
    "APNS_TOPIC": os.environ.get("APNS_TOPIC") or None,
    "APNS_USE_SANDBOX": os.environ.get("APNS_USE_SANDBOX", "0") == "1",
    # The Web Push (VAPID, RFC 8292) key pair: the private key signs (base64url of its 32 bytes, or
    # of its DER, or the path of a PEM file), the public key is what browsers subscribe with (GET
    # push/vapid-key).
    "WP_PRIVATE_KEY": os.environ.get("WEBPUSH_VAPID_PRIVATE_KEY") or None,
    "WP_CLAIMS": {"sub": os.environ.get("WEBPUSH_VAPID_SUBJECT", "mailto:ops@example.invalid")},
    "WP_ERROR_TIMEOUT": PUSH_TIMEOUT_SECONDS,
}
WEBPUSH_VAPID_PUBLIC_KEY = os.environ.get("WEBPUSH_VAPID_PUBLIC_KEY", "")
# FCM: the service account JSON file's path (firebase-admin's credential), and its project.
FCM_CREDENTIALS_PATH = os.environ.get("FCM_CREDENTIALS_PATH", "")
# A push that fails with a 5xx or a timeout is tried again after each of these (seconds); then given up.
PUSH_RETRY_SCHEDULE = [
    float(step) for step in os.environ.get("PUSH_RETRY_SCHEDULE", "2,10,60,300").split(",") if step.strip()
]
PUSH_DEVICES_PER_USER = 10
# With Redis, the feed queues the entries to push there (accounts/feed.py); beat drains them this often.
PUSH_DRAIN_SECONDS = float(os.environ.get("PUSH_DRAIN_SECONDS", "1"))
CELERY_BEAT_SCHEDULE["push-drain"] = {
    "task": "push.entries_drain",
    "schedule": PUSH_DRAIN_SECONDS,
    "options": {"expires": PUSH_DRAIN_SECONDS},
}
# A hand-over to the worker lost with Redis or a dying worker: beat's sweep reads the feed every
# PUSH_SWEEP_SECONDS for entries at least PUSH_SWEEP_GRACE old that no device got, and pushes them;
# older than PUSH_SWEEP_MAX_AGE they are only kept in the inbox (accounts/push/delivery.py).
PUSH_SWEEP_SECONDS = float(os.environ.get("PUSH_SWEEP_SECONDS", "30"))
PUSH_SWEEP_GRACE = float(os.environ.get("PUSH_SWEEP_GRACE", "10"))
PUSH_SWEEP_MAX_AGE = float(os.environ.get("PUSH_SWEEP_MAX_AGE", "600"))
PUSH_SWEEP_USERS = 1000  # users swept per run at most; the rest wait for the next
CELERY_BEAT_SCHEDULE["push-sweep"] = {
    "task": "push.entries_sweep",
    "schedule": PUSH_SWEEP_SECONDS,
    "options": {"expires": PUSH_SWEEP_SECONDS},
}
# How long after his last open stream or long-poll a user still counts as watching (no your_turn push).
PUSH_PRESENCE_SECONDS = 40
