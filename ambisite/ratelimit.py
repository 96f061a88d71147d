"""Fixed-window rate limits kept in the cache (Redis in production, see ``CACHE_URL``), so
every web process counts against the same limit; no database row is touched."""

from __future__ import annotations

import ipaddress
import time

from django.core.cache import cache


def allow(key: str, limit: int, window_s: int = 60) -> bool:
    """Count one event for ``key``; False once more than ``limit`` happened in the current
    window of ``window_s`` seconds. A limit of 0 or less disables the check."""
    if limit <= 0:
        return True
    bucket = f"ratelimit:{key}:{int(time.time() // window_s)}"
    cache.add(bucket, 0, timeout=window_s + 5)
    try:
        count = cache.incr(bucket)
    except ValueError:  # the bucket expired between add and incr
        cache.set(bucket, 1, timeout=window_s + 5)
        count = 1
    return count <= limit


def over(key: str, limit: int, window_s: int = 60) -> bool:
    """True when ``key`` already counted more than ``limit`` events in the current window
    (counts nothing itself). A limit of 0 or less never is."""
    if limit <= 0:
        return False
    return (cache.get(f"ratelimit:{key}:{int(time.time() // window_s)}") or 0) > limit


def seconds_left(window_s: int = 60) -> int:
    """Seconds until the current fixed window ends."""
    return int(window_s - time.time() % window_s) + 1


def client_ip(request) -> str:
    """The peer address (REMOTE_ADDR). A client-supplied header such as X-Forwarded-For is
    never trusted here; behind a reverse proxy all clients share the proxy's address, so
    raise the per-IP limits there (see docs/studies.md)."""
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def login_client_ip(request) -> str | None:
    """The peer address for django-axes (``AXES_CLIENT_IP_CALLABLE``): REMOTE_ADDR when it is
    an IP address, else None (a unix-socket peer, the test client's ``force_login``), which
    axes' GenericIPAddressField stores as NULL instead of failing on PostgreSQL."""
    raw = (getattr(request, "META", None) or {}).get("REMOTE_ADDR", "")
    try:
        return str(ipaddress.ip_address(raw))
    except ValueError:
        return None
