"""Stale-while-revalidate for the dashboards (docs/dashboards.md, Cache: after a write).

A figure that took longer than ``DASHBOARD_BACKGROUND_AFTER_SECONDS`` to compute is not
computed again inside the request that finds it out of date (the first request after a
write): :mod:`dashboards.cache` serves its previous version at once and records it here, and
:mod:`dashboards.middleware` marks the response as stale and enqueues (:func:`enqueue`) one
Celery task that requests the same page again in the worker (:func:`refresh`), which
computes every figure of the page for the current version through the same ``cached()``
calls and so stores them for the next request. The same refresh precomputes the default
pages after a bulk write (:mod:`dashboards.precompute`).

The contract, as for the model runs' worker (:mod:`predictions.runs.worker`): the task holds
nothing but a path, a user id and the cache keys of its locks. A lost task (a worker killed,
a broker that refused it) costs nothing but time: once its lock is older than
``DASHBOARD_STALE_MAX_SECONDS`` the next request drops it and computes the figures itself,
and the request after the next write enqueues again. A task that runs twice only finds the
figures cached the second time.

Only a request of a dashboards URL (:mod:`dashboards.middleware`) can be answered stale,
and only the values it asks for itself (never one computed inside another value, nor any
inside the task), so a stored value is always built from its own version's data.
"""

from __future__ import annotations

import contextvars
import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import unquote_to_bytes, urlsplit

from celery import signature
from django.conf import settings
from django.core.cache import caches
from django.core.handlers.wsgi import WSGIRequest
from django.urls import resolve

logger = logging.getLogger(__name__)


@dataclass
class Page:
    """The dashboards request being answered: its path and query, its user, and what of
    it was served stale (the previous values' times and versions, the locks taken)."""

    path: str
    user_id: int | None
    as_of: list[datetime] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)
    locks: list[str] = field(default_factory=list)


# the dashboards request in progress (None outside one, and inside the refresh task)
PAGE: contextvars.ContextVar[Page | None] = contextvars.ContextVar("dash_page", default=None)
# how many cached() computations are running in this context: only the outermost may be stale
DEPTH: contextvars.ContextVar[int] = contextvars.ContextVar("dash_depth", default=0)


def background_after() -> float | None:
    """The setting: a value whose last computation took at least this long is recomputed
    in the background; 0 or None: never (every value computed in its request)."""
    seconds = getattr(settings, "DASHBOARD_BACKGROUND_AFTER_SECONDS", None)
    return float(seconds) if seconds else None


def may_serve_stale() -> Page | None:
    """The request's page when a value may be served stale here: a dashboards request,
    outside any other value's computation, with the background on."""
    page = PAGE.get()
    if page is None or DEPTH.get() or background_after() is None:
        return None
    return page


@contextmanager
def computing() -> Iterator[None]:
    """Marks a value's computation: the values it asks for are computed, never stale."""
    token = DEPTH.set(DEPTH.get() + 1)
    try:
        yield
    finally:
        DEPTH.reset(token)


def enqueue(path: str, user_id: int | None, locks: list[str]) -> None:
    """Send the refresh task of ``path`` (the one place that does; tests and the bench
    replace it). By its name, which never changes: ``dashboards.tasks`` imports this module."""
    signature("dashboards.refresh_page", args=(path, user_id, locks)).delay()


def release(locks: list[str]) -> None:
    try:
        caches[settings.DASHBOARD_CACHE].delete_many(locks)
    except Exception as exc:  # they expire anyway
        logger.warning("dashboard refresh locks not released: %s", exc)


def refresh(path: str, user_id: int | None, locks: list[str]) -> int:
    """Request ``path`` (a dashboards page with its query) in this process as ``user_id``,
    which computes and caches its figures for the current data version; then release the
    locks. Returns the view's status code (200; 302 when the user is no longer a
    researcher: nothing computed)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import AnonymousUser

    try:
        request = internal_get(path)
        found = get_user_model().objects.filter(pk=user_id).first() if user_id else None
        request.user = found or AnonymousUser()
        match = resolve(request.path_info)
        request.resolver_match = match
        token = PAGE.set(None)  # nothing stale in here: every miss is computed
        try:
            response = match.func(request, *match.args, **match.kwargs)
        finally:
            PAGE.reset(token)
        return response.status_code
    finally:
        release(locks)


def internal_get(path: str) -> WSGIRequest:
    """A GET of ``path`` (with its query, as ``get_full_path()`` gives it) made in this
    process, as a WSGI server would pass it to Django: no body, no cookies, no session; the
    caller sets ``request.user``. Host ``localhost`` (in the default ``ALLOWED_HOSTS``;
    the dashboards' GET views read no host)."""
    parts = urlsplit(path)
    environ = {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": "",
        # WSGI passes the path as undecoded bytes in a latin-1 str
        "PATH_INFO": unquote_to_bytes(parts.path or "/").decode("iso-8859-1"),
        "QUERY_STRING": parts.query,
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.url_scheme": "http",
        "wsgi.errors": io.StringIO(),
    }
    return WSGIRequest(environ)
