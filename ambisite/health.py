"""``/healthz``: is this web process up and can it reach what a request needs? For container
health checks and load balancers; one ``SELECT 1`` and one cache read, no session, no
template."""

from __future__ import annotations

import logging

from django.core.cache import cache
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

HEALTH_PATH = "/healthz"
# The cache's errors (CACHE_URL on Redis): the server refused or dropped the connection, or a
# call passed its socket timeout. Any other Redis error (a bad command) is a bug: a 500.
CACHE_ERRORS: tuple[type[BaseException], ...] = (RedisConnectionError, RedisTimeoutError)


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as exc:
        logger.warning("Health check: database unavailable: %s", exc)
        return False
    return True


def _cache_ok() -> bool:
    """The cache answers a read (Redis in production: rate limits, sessions, lock-outs)."""
    try:
        cache.get("healthz")
    except CACHE_ERRORS as exc:
        logger.warning("Health check: cache unavailable: %s", exc)
        return False
    return True


@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    """200 "ok" when the database and the cache answer; 503 naming each that does not
    ("database unavailable", "cache unavailable"), never a stack trace."""
    failing = [
        name for name, ok in (("database", _database_ok()), ("cache", _cache_ok())) if not ok
    ]
    if failing:
        text = "".join(f"{name} unavailable\n" for name in failing)
        response = HttpResponse(text, status=503)
    else:
        response = HttpResponse("ok\n")
    response["Content-Type"] = "text/plain; charset=utf-8"
    response["Cache-Control"] = "no-store"
    return response
