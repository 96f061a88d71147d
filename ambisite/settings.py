"""AmbiSite settings: one module, driven by the environment.

Every knob is read from an environment variable with a strict parser, so that a typo in a
deployment fails at start-up instead of silently falling back to a default.
"""

from __future__ import annotations

import os
import sys
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from dotenv import load_dotenv

from ambisite.env import env_int as read_env_int
from ambisite.llm_endpoints import parse_endpoints
from ambisite.published import KEY_HINT, is_placeholder_key

BASE_DIR = Path(__file__).resolve().parent.parent
# Under pytest (pytest-django runs with DEBUG=0): no .env, no collected static files.
TESTING = "pytest" in sys.modules

# An optional env file (default: .env in the repository root; `make demo` writes a development
# one) fills in variables that the environment does not set: real environment variables win.
# AMBISITE_ENV_FILE names another file, or "" for none. The test suite never reads it, so a
# stray .env cannot change the tests' or CI's settings.
ENV_FILE = os.environ.get("AMBISITE_ENV_FILE", str(BASE_DIR / ".env"))
if ENV_FILE and not TESTING:
    load_dotenv(ENV_FILE, override=False)
VAR_DIR = Path(os.environ.get("AMBISITE_VAR_DIR", BASE_DIR / "var"))
# `make test` runs pytest-xdist processes side by side (PYTEST_XDIST_WORKER=gw0, gw1, ...;
# pytest-django gives each its own test database). Each one, and every Celery worker or server
# it starts (they inherit the variable), also gets its own var/ folder and Celery queue, so no
# broker message, upload or artifact of one process reaches another.
TEST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if TEST_WORKER:
    VAR_DIR = VAR_DIR / "xdist" / TEST_WORKER


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    lowered = raw.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false)")


env_int = partial(read_env_int, error=ImproperlyConfigured)


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name, "")
    if raw.strip() == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return [part.strip() for part in raw.split(",") if part.strip()]


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off: export it, or run `make env` for a "
            "development .env (see README, Configuration)"
        )
    SECRET_KEY = "insecure-development-key-set-SECRET_KEY-in-production"
elif not DEBUG and is_placeholder_key(SECRET_KEY):
    raise ImproperlyConfigured(
        "SECRET_KEY is the published placeholder of .env.example: set 50+ random characters "
        f"({KEY_HINT})"
    )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "ambisite.apps.AmbisiteConfig",  # the site's own checks (ambisite.passwords)
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "annotations",
    "predictions",
    "studies",
    "writing",
    "wug",
    "dashboards",
]

MIDDLEWARE = [
    "ambisite.middleware.HealthCheckMiddleware",
    "ambisite.middleware.RefuseNulMiddleware",
    "ambisite.request_body.RequestBodyMiddleware",  # before CSRF, which reads request.POST
    "ambisite.middleware.DatabaseUnavailableMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "ambisite.middleware.CSPMiddleware",  # django-csp's, the policy built once
    "axes.middleware.AxesMiddleware",
    "dashboards.middleware.DashboardRequestMiddleware",  # stale figures after a write
]

ROOT_URLCONF = "ambisite.urls"
WSGI_APPLICATION = "ambisite.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "dashboards.middleware.stale_notice",
            ],
        },
    },
]

DATABASES: dict[str, dict[str, Any]] = {
    "default": dict(
        dj_database_url.parse(
            os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'ambisite.sqlite3'}"),
            # Persistent connections (one per web thread), checked before reuse.
            conn_max_age=env_int("DB_CONN_MAX_AGE", 60),
            conn_health_checks=env_bool("DB_CONN_HEALTH_CHECKS", True),
        )
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend, with the health check skipped for a connection that ended a request
    # cleanly less than DB_HEALTH_CHECK_IDLE seconds ago (ambisite/db/postgresql/base.py)
    DATABASES["default"]["ENGINE"] = "ambisite.db.postgresql"
    DATABASES["default"]["HEALTH_CHECK_IDLE"] = env_float("DB_HEALTH_CHECK_IDLE", 1.0)
if DATABASES["default"]["ENGINE"] == "ambisite.db.postgresql" and env_bool(
    "DB_SERVER_SIDE_BINDING", True
):
    # Parameters travel apart from the SQL, so psycopg prepares a statement that a
    # connection runs for the fifth time and PostgreSQL stops parsing and planning it anew:
    # the rating path's handful of statements repeat on every persistent connection.
    # (Django turns psycopg's automatic preparation off for connection poolers in
    # transaction mode; AmbiSite talks to PostgreSQL directly, docs/deployment.md.)
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"server_side_binding": True, "prepare_threshold": 5}
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default lives under var/, which a fresh clone does not have yet.
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    # WAL lets the web process read while the worker writes; the timeout waits out writers.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 20, "init_command": "PRAGMA journal_mode=WAL;"}
    )
    # Tests that start a real worker process need the test database in a file it can open.
    DATABASES["default"]["TEST"] = {
        "NAME": os.environ.get("SQLITE_TEST_NAME", str(VAR_DIR / "test-ambisite.sqlite3"))
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 12},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    {"NAME": "ambisite.passwords.KnownPasswordValidator"},  # the demo login's
]
# Under pytest only: Django's PBKDF2 (1,000,000 iterations) took about 1 s per hash on the
# 2-core CI machine, paid by every test that creates a user with a password (the shared
# `researcher` fixture) or logs in. The tests hash with MD5 instead; the real hashers stay
# listed after it, so hashes written by a server or worker process the tests start still check.
if TESTING:
    PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.MD5PasswordHasher",
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
        "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
        "django.contrib.auth.hashers.Argon2PasswordHasher",
        "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
        "django.contrib.auth.hashers.ScryptPasswordHasher",
    ]
# --- Security (helper "secure"): brute-force limits -------------------------------------
# django-axes guards every authenticate() call with a request (/accounts/login/, /admin/login/):
# after AUTH_FAILURE_LIMIT failures for one username from one client IP, further attempts of
# that pair (the right password too) answer the 429 page until AUTH_COOLOFF_MINUTES have
# passed since the last failure; other clients may still log in as that user. Slower paths
# (ambisite.loginlock): AUTH_USERNAME_FAILURE_LIMIT failures for one username from any
# clients, or AUTH_CLIENT_FAILURE_LIMIT from one client with any usernames, lock as well.
# Failures are kept in the database (axes tables), so all web processes agree.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "ambisite.passwords.ModelBackend",  # Django's, refusing the demo password with DEBUG off
]
AXES_FAILURE_LIMIT = env_int("AUTH_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AUTH_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["ip_address", "username"]]
AXES_HANDLER = "ambisite.loginlock.LoginLockHandler"
AUTH_USERNAME_FAILURE_LIMIT = env_int("AUTH_USERNAME_FAILURE_LIMIT", 30)
AUTH_CLIENT_FAILURE_LIMIT = env_int("AUTH_CLIENT_FAILURE_LIMIT", 20)
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "429.html"
AXES_CLIENT_IP_CALLABLE = "ambisite.ratelimit.login_client_ip"
AXES_VERBOSE = False
# API tokens (ambisite.ratelimit, per minute): creating/replacing a token per account and per
# IP; failed token authentications (unknown token) per IP, past which even a valid token from
# that IP answers 429 until the minute is over.
TOKEN_CREATE_RATE = env_int("TOKEN_CREATE_RATE", 5)
TOKEN_FAILURE_RATE = env_int("TOKEN_FAILURE_RATE", 10)
# --- end of the brute-force block -----------------------------------------------------------

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
# The site is written in English only (no app has translations). Without translation
# machinery every template variable skips the per-thread language look-up, which was about
# a tenth of a rating page's rendering (docs/performance.md).
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "staticfiles"))
# Static files are served by WhiteNoise from every web process (docs/deployment.md). With
# STATIC_MANIFEST on (the default when DEBUG=0) templates link the hashed, gzip-compressed
# copies that `manage.py collectstatic` writes to STATIC_ROOT (the Dockerfile and `make
# serve-prod` run it), which browsers may cache for ever; a page rendered before
# collectstatic has run fails loudly. Off (DEBUG=1, STATIC_MANIFEST=0, and the tests, which
# pytest-django runs with DEBUG=0 but never collect), templates link the plain names and
# WhiteNoise finds the files in static/ and the apps' folders at request time.
STATIC_MANIFEST = env_bool("STATIC_MANIFEST", not DEBUG and not TESTING)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "ambisite.storage.StaticStorage"
        if STATIC_MANIFEST
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = not STATIC_MANIFEST
# Look files up per request only where the set can change under a running process (DEBUG,
# the tests); otherwise WhiteNoise indexes them once at start-up.
WHITENOISE_AUTOREFRESH = DEBUG or TESTING
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", VAR_DIR / "media"))
MEDIA_URL = "/media/"
ARTIFACT_ROOT = Path(os.environ.get("ARTIFACT_ROOT", VAR_DIR / "artifacts"))

# Prediction uploads (site and API): larger files are refused with 413 before being read;
# accepted ones are parsed line by line. Files above FILE_UPLOAD_MAX_MEMORY_SIZE are spooled
# to a temporary file instead of memory; other request bodies are capped by Django.
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_BYTES", 5 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
FILE_UPLOAD_HANDLERS = [
    "predictions.web.upload_handlers.UploadCapHandler",  # stops reading at UPLOAD_MAX_BYTES
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440  # Django's default, stated: forms and JSON bodies
DATA_UPLOAD_MAX_NUMBER_FILES = 5  # every upload form takes one file
# Any request body: a larger Content-Length is answered 413 before the body is read
# (ambisite.request_body); views marked accepts_upload get UPLOAD_MAX_BYTES and their form.
REQUEST_MAX_BYTES = env_int("REQUEST_MAX_BYTES", DATA_UPLOAD_MAX_MEMORY_SIZE + 64 * 1024)

# Crowd path (docs/performance.md, docs/studies.md): the cache holds the rate-limit counters,
# so production points CACHE_URL at Redis (redis://host:6379/2) to share them between web
# processes; the default is a per-process memory cache. Participant pages use no session.
CACHE_URL = os.environ.get("CACHE_URL", "")
CACHE_TIMEOUT_S = env_float("CACHE_TIMEOUT_S", 2.0)
if CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            # A Redis that is down or unreachable fails a request within seconds (a 503 page,
            # ambisite.middleware) instead of holding a worker thread until gunicorn's timeout.
            "OPTIONS": {
                "socket_connect_timeout": CACHE_TIMEOUT_S,
                "socket_timeout": CACHE_TIMEOUT_S,
            },
        }
    }
elif CACHE_URL in ("", "locmem://"):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    raise ImproperlyConfigured(f"CACHE_URL={CACHE_URL!r}: use redis://host:port/db or locmem://")
# Dashboards (dashboards.cache, docs/dashboards.md "Cache"): figures kept under their scope and
# data version (after a write, a slow one is served stale while recomputed: below); on Redis
# beside the rest (own key prefix), else a memory cache of its own. An entry unused for
# DASHBOARD_CACHE_SECONDS is dropped (to free memory only).
CACHES["dashboards"] = (
    {**CACHES["default"], "KEY_PREFIX": "dash"}
    if CACHE_URL not in ("", "locmem://")
    else {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "dashboards",
        "OPTIONS": {"MAX_ENTRIES": 200},
    }
)
DASHBOARD_CACHE = "dashboards"
DASHBOARD_CACHE_SECONDS = env_int("DASHBOARD_CACHE_SECONDS", 86400)
# After a write, a figure whose last computation took at least this long is served from its
# previous version (the page says so) while a Celery task recomputes it (dashboards.background).
# On by default only where the cache is shared with the worker (Redis); 0: off. A refresh not
# done DASHBOARD_STALE_MAX_SECONDS after it was enqueued (its task lost, its worker stuck) is
# given up: the next request computes the figures itself.
DASHBOARD_BACKGROUND_AFTER_SECONDS = env_float(
    "DASHBOARD_BACKGROUND_AFTER_SECONDS", 0.3 if CACHE_URL not in ("", "locmem://") else 0.0
)
DASHBOARD_STALE_MAX_SECONDS = env_int("DASHBOARD_STALE_MAX_SECONDS", 120)
# Researcher sessions: read from the cache, written through to the database (participant
# pages use no session at all).
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
# Arrivals (link + consent) and qualification POSTs allowed per minute, per client IP and per
# study; past either the participant gets a 429 page. 0 turns a limit off.
STUDY_RATE_PER_IP = env_int("STUDY_RATE_PER_IP", 30)
STUDY_RATE_PER_STUDY = env_int("STUDY_RATE_PER_STUDY", 1200)
# Prolific's API (studies.prolific): with a token, the consent POST of a study with a Prolific
# study id asks Prolific for the link's submission (SESSION_ID) and refuses an arrival that is
# not this participant's active submission in that study. Empty (the default): no check.
PROLIFIC_API_TOKEN = os.environ.get("PROLIFIC_API_TOKEN", "")
PROLIFIC_API_URL = os.environ.get("PROLIFIC_API_URL", "https://api.prolific.com")
PROLIFIC_API_TIMEOUT = env_float("PROLIFIC_API_TIMEOUT", 5.0)
# Holds that scale with trust (docs/studies.md "Holds"), per client (ratelimit.client_key)
# and study: at most this many unqualified holds at once and this many holds in all (0 turns
# a cap off); each further hold of a client is half as long, never under HOLD_MIN_SECONDS;
# a page that sent a heartbeat and then none for HOLD_IDLE_SECONDS (or said it was closed,
# HOLD_GONE_SECONDS ago) gives its unqualified hold back.
HOLD_UNQUALIFIED_PER_CLIENT = env_int("HOLD_UNQUALIFIED_PER_CLIENT", 3)
HOLD_TOTAL_PER_CLIENT = env_int("HOLD_TOTAL_PER_CLIENT", 6)
HOLD_MIN_SECONDS = env_int("HOLD_MIN_SECONDS", 120)
HOLD_IDLE_SECONDS = env_int("HOLD_IDLE_SECONDS", 300)
HOLD_GONE_SECONDS = env_int("HOLD_GONE_SECONDS", 30)
# Consent transactions (participant + batch claim) one web process runs at once; the others
# wait for it before they begin, holding no lock. Concurrent claims in one study mostly reach
# for the same free slots and lose rounds to each other, each lost round another count of
# the free slots: in a 500-arrival burst one at a time per process (3 across gunicorn's 3
# workers) cut link-to-first-item p95 by a third (docs/performance.md). 0: no limit.
ARRIVAL_CLAIMS_PER_PROCESS = env_int("ARRIVAL_CLAIMS_PER_PROCESS", 1)
# Seconds an arrival may rank setups from its web process's latest count of the study's free
# slots (less the slots the process took since) instead of counting them again: the count
# is a third of an arrival's PostgreSQL time in a burst. Near-full setups, and whether the
# study is full, are always decided from a fresh count (studies.assignment._claim). 0: off.
ARRIVAL_COUNT_SECONDS = env_float("ARRIVAL_COUNT_SECONDS", 0.5)
# How many reverse proxies in front of gunicorn append the peer they saw to X-Forwarded-For
# (1 for the TLS proxy of docs/deployment.md). Per-IP limits (studies, tokens, logins) then
# count the client's address instead of the proxy's; 0 uses REMOTE_ADDR.
TRUSTED_PROXY_HOPS = env_int("TRUSTED_PROXY_HOPS", 0)

# --- Security (helper "secure"): production transport settings and CSP -----------------------
# All default to off for the loopback demo; .env.example lists the production values, and
# `manage.py check --deploy --fail-level WARNING` passes with them (tests/security).
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", False)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", False)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
# Behind a TLS-terminating proxy that sets X-Forwarded-Proto (and strips it from clients):
# request.is_secure() and build_absolute_uri() (the Prolific URL) then say https.
if env_bool("TRUST_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy (django-csp 4): only the site's own files; no inline script or style
# anywhere (templates link static files). CSP_REPORT_ONLY=1 reports instead of blocking.
_CSP = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
if env_bool("CSP_REPORT_ONLY", False):
    CONTENT_SECURITY_POLICY_REPORT_ONLY = _CSP
else:
    CONTENT_SECURITY_POLICY = _CSP
# --- end of the transport/CSP block -------------------------------------------------------

# LLM servers that `openai_chat` runs may use, by name (ambisite/llm_endpoints.py,
# docs/llm-backends.md): a run gives {"endpoint": name, "model": ...}, never a URL or a key.
# Unset: none in production; with DEBUG=1 one "local" endpoint, an Ollama on loopback, any model.
_LLM_DEV_DEFAULT = '{"local": {"base_url": "http://127.0.0.1:11434/v1", "models": ["*"]}}'
LLM_ENDPOINTS = parse_endpoints(
    os.environ.get("LLM_ENDPOINTS") or (_LLM_DEV_DEFAULT if DEBUG else "{}")
)

# Celery: Redis in production and CI; with no broker configured the demo uses kombu's
# filesystem transport, so a real worker process runs without any extra service.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
CELERY_FILESYSTEM_DIR = VAR_DIR / "celery"
CELERY_TASK_DEFAULT_QUEUE = f"celery-{TEST_WORKER}" if TEST_WORKER else "celery"
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "ambisite.tokenauth.ThrottledTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAdminUser"],
    "DEFAULT_PARSER_CLASSES": [
        "annotations.api.parsers.SafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "AmbiSite API",
    "DESCRIPTION": "Graded word-sense judgments: data, studies, ratings and model runs.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and Redoc are served from the sidecar package, never from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "ambisite.openapi.document_parameter_rules",
    ],
    # One name for the task kinds, wherever a field holds them (a rating's kind, a study's).
    "ENUM_NAME_OVERRIDES": {"TaskKindEnum": "annotations.models.TaskKind"},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
