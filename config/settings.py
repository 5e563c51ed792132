"""Settings come from the environment, with safe development defaults.

Embedded defaults: SQLite (WAL, immediate transactions) and the in-memory channel layer.
`DATABASE_URL` switches to PostgreSQL (a `sqlite:///` URL picks another SQLite file; other
schemes stop at start), `REDIS_URL` to channels-redis, so several Daphne processes can serve one
room together.
"""

import ipaddress
import os
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    return os.environ.get(name, str(default)).strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)
# The development key is public on purpose; production must set SECRET_KEY.
SECRET_KEY = os.environ.get("SECRET_KEY", "django-insecure-development-only-key-change-me")
if not DEBUG and SECRET_KEY.startswith("django-insecure"):
    raise RuntimeError("Set SECRET_KEY in the environment when DEBUG is off.")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "ninja",
    "axes",
    "games",
    "games.players",
    # The game kinds, each an app in its own folder (games/kinds/apps.py), in the order the home
    # page offers them; adding a kind is its folder and its line here.
    "games.kinds",
    "games.kinds.minesweeper",
    "games.kinds.race",
    "games.kinds.flags",
    "games.kinds.tictactoe",
]

MIDDLEWARE = [
    # First, so that it sees every answer: errors under /api/ as JSON.
    "games.web.api_errors.JsonErrors",
    # Next, so that it compresses what every inner layer wrote: GET answers only, DEBUG too
    # (games/web/compress.py says why that is safe against BREACH).
    "games.web.compress.Compress",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: turns a locked-out admin login into its 429 page.
    "axes.middleware.AxesMiddleware",
]

# django-axes counts failed sign-ins (/admin/, /accounts/login/, POST /api/accounts/token) per
# client address and, but for /admin/, per username, each on its own: after AXES_FAILURE_LIMIT
# of them the address (or the username, from anywhere) is refused, right password or not, for
# AXES_COOLOFF_TIME. The address is REMOTE_ADDR: the peer's, or the X-Forwarded-For of a peer in
# TRUSTED_PROXIES, which deploy/nginx.conf sets to its own peer (docs/operations.md, "Admin").
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_LOCKOUT_PARAMETERS = "games.players.lockout.lockout_parameters"  # /admin/: the address alone
AXES_LOCKOUT_CALLABLE = "games.players.lockout.locked_out"
AXES_FAILURE_LIMIT = int(os.environ.get("ADMIN_LOGIN_FAILURES", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("ADMIN_LOGIN_COOLOFF_MINUTES", "15")))
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False  # no banner on every start: the terminal games print only the game

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = None
ASGI_APPLICATION = "config.asgi.application"

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
                "django.template.context_processors.csp",
            ],
        },
    },
]

SQLITE_PATH = os.environ.get("SQLITE_PATH", str(BASE_DIR / "db.sqlite3"))
SQLITE_WAL_AUTOCHECKPOINT_PAGES = 10_000
"""A server checkpoints the log from a thread of its own (`games.store.sqlite_checkpoints`); a commit
does it itself only past this many pages (about 40 MB), not SQLite's 1,000."""
SQLITE_OPTIONS = {
    # Without IMMEDIATE a read-then-write transaction can fail at once with "database is locked".
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
    f"PRAGMA wal_autocheckpoint={SQLITE_WAL_AUTOCHECKPOINT_PAGES};",
}


def sqlite_database(path: str) -> dict[str, Any]:
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": path,
        "OPTIONS": SQLITE_OPTIONS,
        # Kept open between calls: a socket's database work all runs on one thread per
        # process, and reopening (with its pragmas) cost 2-3 ms per move. The page threads
        # keep theirs too (`games.patches.django_pages`); a SQLite connection is a file handle.
        "CONN_MAX_AGE": 600,
        # A file, not memory, so threads in the tests share it; one per test process.
        "TEST": {
            "NAME": os.environ.get(
                "SQLITE_TEST_PATH",
                str(Path(tempfile.gettempdir()) / f"minesweeper-test-{os.getpid()}.sqlite3"),
            )
        },
    }


def postgres_database(url: str) -> dict[str, Any]:
    # Under ASGI every request may run on a thread of its own, so persistent connections pile
    # up until PostgreSQL refuses more; Django's advice is a pool instead (psycopg_pool).
    database = dj_database_url.parse(url, conn_max_age=0)
    database.setdefault("OPTIONS", {}).update(
        pool={
            "min_size": 1,
            "max_size": int(os.environ.get("DATABASE_POOL_SIZE", "10")),
            "timeout": 10,
        },
        # Parameters sent apart from the SQL, and a statement run five times on a connection
        # is prepared there: PostgreSQL stops parsing and planning every move's three
        # statements anew (its CPU per move fell by a fifth, docs/performance.md).
        server_side_binding=True,
        prepare_threshold=5,
    )
    return database


SUPPORTED_DATABASES = (
    "postgres://USER:PASSWORD@HOST:PORT/NAME (PostgreSQL), sqlite:///relative/path.sqlite3 or "
    "sqlite:////absolute/path.sqlite3 (SQLite), or no DATABASE_URL for SQLite at SQLITE_PATH"
)


def url_database(url: str) -> dict[str, Any]:
    """DATABASE_URL's database. Only PostgreSQL and SQLite are tested; any other scheme stops
    here, at start, rather than at the first query with a driver's error."""
    scheme = urlsplit(url).scheme
    try:
        parsed = dj_database_url.parse(url)
    except ValueError:
        parsed = {"ENGINE": None}
    if parsed["ENGINE"] == "django.db.backends.postgresql":
        return postgres_database(url)
    if parsed["ENGINE"] == "django.db.backends.sqlite3":
        # In memory, every thread (so every request) would get an empty database of its own.
        if parsed["NAME"] in ("", ":memory:"):
            raise ImproperlyConfigured(
                f"DATABASE_URL {url!r} names no SQLite file; use {SUPPORTED_DATABASES}."
            )
        return sqlite_database(parsed["NAME"])
    raise ImproperlyConfigured(
        f"DATABASE_URL scheme {scheme!r} is not supported; use {SUPPORTED_DATABASES}."
    )


# Lower case: not a setting, so a debug page can never show the URL's password.
database_url = os.environ.get("DATABASE_URL", "")
DATABASES = {
    "default": url_database(database_url) if database_url else sqlite_database(SQLITE_PATH)
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
REDIS_CHANNEL_LAYER = os.environ.get("REDIS_CHANNEL_LAYER", "pubsub")
REDIS_LAYER_CONFIG = {
    # redis-py 8 defaults to a 5 s socket timeout, which kills every idle socket with 1011.
    "hosts": [{"address": REDIS_URL, "socket_timeout": None}],
    # Deployments (or test runs) sharing one Redis database keep apart by prefix.
    "prefix": os.environ.get("CHANNEL_LAYER_PREFIX", "asgi"),
}
if REDIS_URL and REDIS_CHANNEL_LAYER == "core":
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {**REDIS_LAYER_CONFIG, "capacity": 1000, "expiry": 30},
        }
    }
elif REDIS_URL:
    # One PUBLISH per room message, which Redis pushes to every process with sockets in the room
    # (`games.live.relay` gives each one channel per room); the core layer stores a copy per process in
    # a list that each pops with a round trip of its own (docs/performance.md). It never fails a
    # receive when Redis goes away, so `games.live.layer_watch` notices that instead.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": REDIS_LAYER_CONFIG,
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 1000}}
    }

SPEED_SHORTCUTS_ALL = frozenset({"frames", "dispatch", "serve", "pages"})
"""Every speed-only shortcut through a library's private parts (`games.patches`)."""


def speed_shortcuts(value: str) -> frozenset[str]:
    """`SPEED_SHORTCUTS`: `on` (all), `off` (none: every library's public path), or the names of
    those to keep, comma-separated (to measure one against the others); anything else stops the
    start. Safety touches (the output limit, the close codes) are not shortcuts: always on."""
    value = value.strip().lower()
    if value in ("", "on"):
        return SPEED_SHORTCUTS_ALL
    if value == "off":
        return frozenset()
    names = frozenset(name.strip() for name in value.split(",") if name.strip())
    if not names <= SPEED_SHORTCUTS_ALL:
        raise ImproperlyConfigured(
            f"SPEED_SHORTCUTS={value!r}: use 'on', 'off' or some of "
            f"{', '.join(sorted(SPEED_SHORTCUTS_ALL))}."
        )
    return names


SPEED_SHORTCUTS = speed_shortcuts(os.environ.get("SPEED_SHORTCUTS", "on"))
"""The speed shortcuts on in this process (docs/operations.md, "Library internals")."""

PAGE_THREADS = int(os.environ.get("PAGE_THREADS", "4"))
"""Threads that serve pages, each keeping its database connection (`games.patches.django_pages`):
a page runs there start to finish; more pages at once wait their turn."""

# The cache holds rate-limit counters; Redis shares them between processes in production.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            # Like CHANNEL_LAYER_PREFIX: keeps apart deployments or test runs sharing one Redis.
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "minesweeper"),
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

ROOMS_PER_MINUTE = int(os.environ.get("ROOMS_PER_MINUTE", "10"))
"""New rooms allowed per client address and minute (pages and API together)."""
JOINS_PER_MINUTE = int(os.environ.get("JOINS_PER_MINUTE", "20"))
"""Seats one client address may take per minute, in any rooms (pages and API together)."""
HINTS_PER_MINUTE = int(os.environ.get("HINTS_PER_MINUTE", "30"))
REPLAY_BUILDS_PER_MINUTE = int(os.environ.get("REPLAY_BUILDS_PER_MINUTE", "30"))
"""Games one client address may have replayed from their whole move log per minute (a replay
page, a chunk or the API's game view of a game no process kept): the one cost of looking that
grows with the game (about 0.4 s at 4,700 moves, docs/performance.md)."""
PREVIEWS_PER_MINUTE = int(os.environ.get("PREVIEWS_PER_MINUTE", "60"))
"""Link-preview pictures one client address may have drawn per minute; kept ones are free."""
DAILY_PLAYS_PER_MINUTE = int(os.environ.get("DAILY_PLAYS_PER_MINUTE", "10"))
"""Copies of the daily board one client address may be dealt per minute (page and API together):
each is a room with its board generated, and only a person's first copy counts anyway."""


def daily_board(text: str) -> tuple[int, int, int]:
    """`DAILY_BOARD` as WIDTHxHEIGHTxMINES ("16x16x40"); a value that is no such board (or not a
    no-guess one: at most a quarter mines, 4 to 50 a side) falls back to intermediate, so a typo
    in the environment never stops the server nor deals a board nobody can clear."""
    try:
        width, height, mines = (int(part) for part in text.lower().split("x"))
    except ValueError:
        return 16, 16, 40
    if 4 <= width <= 50 and 4 <= height <= 50 and 1 <= mines <= width * height // 4:
        return width, height, mines
    return 16, 16, 40


DAILY_BOARD = daily_board(os.environ.get("DAILY_BOARD", "16x16x40"))
"""The daily board's size (games.rooms.daily): the same for every day, so days compare."""
RATE_WINDOW_SECONDS = int(os.environ.get("RATE_WINDOW_SECONDS", "60"))
"""The "minute" of the per-address limits above (rooms, joins, hints, replays, previews): their
counters start again every this many seconds of the clock (games/web/room_limit.py). Tests
lengthen it, so a burst need not wait for a fresh minute."""
# Move budgets (games/protocol/flood.py): per seat, its websockets and the API together, one person's
# pace; per client address across its seats. A burst, then so many a second.
MOVES_BURST = int(os.environ.get("MOVES_BURST", "40"))
MOVES_PER_SECOND = float(os.environ.get("MOVES_PER_SECOND", "20"))
ADDRESS_MOVES_BURST = int(os.environ.get("ADDRESS_MOVES_BURST", "100"))
ADDRESS_MOVES_PER_SECOND = float(os.environ.get("ADDRESS_MOVES_PER_SECOND", "50"))
HINT_ROOM_SECONDS = float(os.environ.get("HINT_ROOM_SECONDS", "1"))
"""The API's hint budget: per client address and minute, and one hint per room this often (the
sockets' own budget is `games.rooms.hints`)."""
SOCKET_OUTPUT_LIMIT_BYTES = int(os.environ.get("SOCKET_OUTPUT_LIMIT_BYTES", str(2 * 1024 * 1024)))
"""A room socket whose peer leaves this much unread is cut off (docs/operations.md, Limits)."""
PRESENCE_HEARTBEAT_SECONDS = float(os.environ.get("PRESENCE_HEARTBEAT_SECONDS", "5"))
PRESENCE_EXPIRY_SECONDS = float(os.environ.get("PRESENCE_EXPIRY_SECONDS", "20"))
"""A process with sockets beats this often; one silent for the expiry is taken for dead and its
sockets leave the presence counts (docs/operations.md, "Presence after a crash")."""
# Host controls (games.rooms.host): how long a host may be away before the seat passes on by itself,
# how long a kicked person stays out.
HOST_AWAY_SECONDS = float(os.environ.get("HOST_AWAY_SECONDS", "60"))
HOST_KICK_SECONDS = float(os.environ.get("HOST_KICK_SECONDS", "600"))
# Seconds a two-sided game's player may be away before their seat is free (and the other may
# claim the win): docs/architecture.md. Tests shorten it.
SEAT_GRACE_SECONDS = float(os.environ.get("SEAT_GRACE_SECONDS", "60"))
# Seconds from a race's start to Go (games/engine/race.py, COUNTDOWN_MS). Tests shorten it.
RACE_COUNTDOWN_SECONDS = float(os.environ.get("RACE_COUNTDOWN_SECONDS", "3"))
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")
"""Prometheus scrapes /metrics with `Authorization: Bearer <this>`; unset, /metrics is a 404
(docs/operations.md, Metrics)."""

# Accounts (games.players): Django's own auth, passwords hashed with Argon2 first (older
# hashes are upgraded at the next sign-in), through Django's validators.
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"django.contrib.auth.password_validation.{name}"}
    for name in (
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    )
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"
SIGNUPS_PER_HOUR = int(os.environ.get("SIGNUPS_PER_HOUR", "5"))
"""New accounts one client address may make per hour (games/players/accounts.py)."""

SESSION_ENGINE = "django.contrib.sessions.backends.db"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# No inline script or style: every byte of JS and CSS is a static file.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
}

# One switch for everything that depends on browsers reaching the site over HTTPS
# (docs/operations.md, "TLS"). On by default in production, so a forgotten setting fails loudly
# (a redirect to https) rather than quietly (cookies sent in the clear); docker-compose.yml,
# whose nginx speaks plain HTTP, sets it explicitly. Secure-only cookies over plain HTTP would
# never come back, and every form would fail with 403 "CSRF cookie not set".
BEHIND_TLS = env_bool("BEHIND_TLS", not DEBUG)
if "SECURE_SSL_REDIRECT" in os.environ:
    raise ImproperlyConfigured("SECURE_SSL_REDIRECT is no longer read: set BEHIND_TLS instead.")
if BEHIND_TLS:
    # Trusted because deploy/nginx.conf always sets it: its own scheme, or a TLS load balancer's.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    # Health checks call the process directly over HTTP; a redirect would fail every one.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^metrics$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    # Opt-in: both bind more than this site (every subdomain; the browsers' preload list, which
    # takes months to leave), so only the operator of the whole domain should turn them on.
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
    SILENCED_SYSTEM_CHECKS = [
        check
        for check, enabled in (
            ("security.W005", SECURE_HSTS_INCLUDE_SUBDOMAINS),
            ("security.W021", SECURE_HSTS_PRELOAD),
        )
        if not enabled
    ]


def trusted_proxies(value: str) -> list[str]:
    """TRUSTED_PROXIES: the addresses or networks (comma-separated) whose `X-Forwarded-For` and
    `X-Forwarded-Proto` name the client (config/asgi.py); anyone else's peer address is the
    client's. Empty, the default: no proxy is believed, so a Daphne reached directly cannot be
    told another address. A name that is no address stops the start rather than match nothing."""
    entries = [entry.strip() for entry in value.split(",") if entry.strip()]
    for entry in entries:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise ImproperlyConfigured(
                f"TRUSTED_PROXIES: {entry!r} is no IP address or network (e.g. 172.30.57.10, "
                "10.0.0.0/8)."
            ) from None
    return entries


# docs/operations.md, "Client addresses".
TRUSTED_PROXIES = trusted_proxies(os.environ.get("TRUSTED_PROXIES", ""))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django": {"handlers": [], "propagate": True}},
}
