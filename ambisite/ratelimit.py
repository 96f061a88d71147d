"""Fixed-window rate limits kept in the cache (Redis in production, see ``CACHE_URL``), so
every web process counts against the same limit; no database row is touched."""

from __future__ import annotations

import ipaddress
import time

from django.conf import settings
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


def allow_all(*checks: tuple[str, int], window_s: int = 60) -> bool:
    """``allow`` for each (key, limit) in turn, stopping at the first refused: a later limit
    (a study's) never counts an event that an earlier one (the client's) refused."""
    return all(allow(key, limit, window_s) for key, limit in checks)


def over(key: str, limit: int, window_s: int = 60) -> bool:
    """True when ``key`` already counted more than ``limit`` events in the current window
    (counts nothing itself). A limit of 0 or less never is."""
    if limit <= 0:
        return False
    return (cache.get(f"ratelimit:{key}:{int(time.time() // window_s)}") or 0) > limit


def seconds_left(window_s: int = 60) -> int:
    """Seconds until the current fixed window ends."""
    return int(window_s - time.time() % window_s) + 1


def _forwarded_client(meta, hops: int) -> str | None:
    """The address ``hops`` entries from the right of X-Forwarded-For: each of our ``hops``
    proxies appended the peer it saw, so that entry was written by our outermost proxy and
    everything left of it came from the client (never trusted). None when the header is
    shorter (a request that did not come through the proxies) or the entry is not an IP."""
    chain = [part.strip() for part in meta.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    chain = [part for part in chain if part]
    if len(chain) < hops:
        return None
    try:
        return str(ipaddress.ip_address(chain[-hops]))
    except ValueError:
        return None


def _peer(request) -> str:
    meta = getattr(request, "META", None) or {}
    hops = settings.TRUSTED_PROXY_HOPS
    forwarded = _forwarded_client(meta, hops) if hops > 0 else None
    return forwarded or meta.get("REMOTE_ADDR", "")


def client_ip(request) -> str:
    """The client's address for per-IP limits: REMOTE_ADDR, or behind ``TRUSTED_PROXY_HOPS``
    reverse proxies the address the outermost of them saw (X-Forwarded-For, read from the
    right; a client's own entries are ignored). Without that setting every client behind a
    proxy shares the proxy's address (docs/deployment.md)."""
    return _peer(request) or "unknown"


def login_client_ip(request) -> str | None:
    """``client_ip`` for django-axes (``AXES_CLIENT_IP_CALLABLE``) when it is an IP address,
    else None (a unix-socket peer, the test client's ``force_login``), which axes'
    GenericIPAddressField stores as NULL instead of failing on PostgreSQL."""
    try:
        return str(ipaddress.ip_address(_peer(request)))
    except ValueError:
        return None


def client_key(request) -> str:
    """Who counts as one client for the per-client study limits and holds: ``client_ip``,
    except that an IPv6 address counts by its /64 network (one subscriber's usual share:
    a client with a /64 could otherwise take a new address for every request)."""
    ip = client_ip(request)
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return ip[:64]
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return ip
