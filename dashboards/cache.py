"""The dashboards' cache: what is costly to recompute (figures, orders, per-rater and
per-setup tables) is kept in the cache under a key made of the page's name, its scope and
filters (``SampleFilterForm.query_string``), its own parameters and the scope's data version
(``annotations.data_versions``). Every write a figure depends on bumps that version in its
transaction, so a changed scope is recomputed on its next request and an old entry is never
read again (it expires after ``DASHBOARD_CACHE_SECONDS``, only to free the memory).

The cache is ``settings.DASHBOARD_CACHE`` (an alias of ``CACHES``, the default one unless
set): a per-process memory cache or Redis. A cache that does not answer costs the page its
speed, never its answer: the figures are computed as without a cache and a warning logged.

After a write, a value whose last computation was slow is served from its previous version
while a Celery task computes the current one (:mod:`dashboards.background`): besides the
versioned entry, each value (page, filters and parameters) has a small pointer
``dash-latest:<name>:<digest>`` to its latest computed version, with when and how long that
computation took. A value never computed yet (no pointer) is computed in its request.
"""

from __future__ import annotations

import hashlib
import logging
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

from django.conf import settings
from django.core.cache import caches
from redis.exceptions import RedisError

from annotations.data_versions import data_version

from . import background
from .forms import SampleFilterForm

logger = logging.getLogger(__name__)
T = TypeVar("T")
_MISSING = object()
# a failing cache: Redis down, timing out or refusing a value (the memory cache never fails)
CACHE_FAILURES: tuple[type[BaseException], ...] = (RedisError, OSError)
# a request's form -> its scope's versions (by kind: the form's, or None for every kind; and
# whether with the runs' changes), read once however many values the page caches
_versions: weakref.WeakKeyDictionary[SampleFilterForm, dict[tuple[str | None, bool], str]] = (
    weakref.WeakKeyDictionary()
)


def scope_version(form: SampleFilterForm, *, every_kind: bool = False, runs: bool = True) -> str:
    """The data version of the form's scope: its kind's, in its splits (every split when
    the scope names none); with ``every_kind`` every kind's, in those splits (a page that
    shows several kinds); with ``runs`` (a figure that lists or scores model runs) also the
    runs' changes. Read once per form and inputs, i.e. once per request."""
    known = _versions.setdefault(form, {})
    key = (None if every_kind else form.task_kind, runs)
    if key not in known:
        splits = [s.pk for s in form.rating_scope.splits]
        known[key] = data_version(kind=key[0], split_ids=splits, runs=runs)
    return known[key]


def _digest(form: SampleFilterForm, params: dict) -> str:
    own = "&".join(f"{k}={params[k]}" for k in sorted(params))
    return hashlib.sha256(f"{form.query_string()}|{own}".encode()).hexdigest()[:32]


def cache_key(name: str, form: SampleFilterForm, version: str, params: dict) -> str:
    """``dash:<name>:<digest of the filters and params>:<version>`` (short, no spaces)."""
    return f"dash:{name}:{_digest(form, params)}:{version}"


@dataclass(frozen=True)
class Latest:
    """The pointer to a value's latest computed version: its cache key, when its
    computation started (the data it shows is as of then) and how long it took."""

    key: str
    version: str
    as_of: datetime
    seconds: float


def _alias() -> str:
    """``DASHBOARD_CACHE``, or the default cache where ``CACHES`` has no such alias."""
    alias = settings.DASHBOARD_CACHE
    return alias if alias in settings.CACHES else "default"


def cached(
    name: str,
    form: SampleFilterForm,
    compute: Callable[[], T],
    *,
    reads_runs: bool = True,
    **params: object,
) -> T:
    """``compute()``'s value for this page (``name``), scope and filters (``form``) and page
    parameters (``params``: everything else the value depends on), from the cache when the
    scope's data has not changed since it was stored. ``reads_runs=False`` only for a value
    that reads no model run or prediction: a finished run then leaves it cached."""
    version = scope_version(form, runs=reads_runs)
    return _cached(name, _digest(form, params), version, compute)


def cached_every_kind(
    name: str, form: SampleFilterForm, compute: Callable[[], T], **params: object
) -> T:
    """:func:`cached` for a page that shows several task kinds (relatedness, sense choice,
    the paper analyses): kept until any kind's data in the scope's splits changes."""
    version = scope_version(form, every_kind=True)
    return _cached(name, _digest(form, params), version, compute)


def _cached(name: str, digest: str, version: str, compute: Callable[[], T]) -> T:
    """The one way into the cache: the entry of ``version``; else (after a write) the
    previous version's, when its computation was slow and this request may be answered
    stale; else ``compute()``, stored with its pointer."""
    store = caches[_alias()]
    key = f"dash:{name}:{digest}:{version}"
    try:
        found = store.get(key, _MISSING)
        if found is _MISSING:
            found = _previous(store, name, digest)
    except CACHE_FAILURES as exc:
        logger.warning("dashboard cache unavailable (read of %s): %s", name, exc)
        return compute()
    if found is not _MISSING:
        return found  # stored by this function, for this key or an earlier version's
    as_of, start = datetime.now(UTC), time.perf_counter()
    with background.computing():
        value = compute()
    latest = Latest(key, version, as_of, time.perf_counter() - start)
    try:
        store.set(key, value, timeout=settings.DASHBOARD_CACHE_SECONDS)
        if not background.DEPTH.get():  # what a request asks for itself
            store.set(f"dash-latest:{name}:{digest}", latest, settings.DASHBOARD_CACHE_SECONDS)
        _forget_older(store, f"dash-key:{name}:{digest}", key)
    except CACHE_FAILURES as exc:
        logger.warning("dashboard cache unavailable (write of %s): %s", name, exc)
    return value


def _forget_older(store, pointer: str, key: str) -> None:
    """Point ``pointer`` at ``key`` and delete the entry it pointed at before: a value's
    older versions are never read again once a newer one is stored (a request that found
    the old one stale a moment before finds it gone and computes), so during a live study,
    where every rating makes a new version, the cache holds one version per value instead
    of one per write until ``DASHBOARD_CACHE_SECONDS``."""
    before = store.get(pointer)
    store.set(pointer, key, settings.DASHBOARD_CACHE_SECONDS)
    if isinstance(before, str) and before != key:
        store.delete(before)


def _previous(store, name: str, digest: str) -> object:
    """The previous version's value, marked on the request's page, when the request may be
    answered stale, that value was slow to compute and no recomputation of it is overdue;
    else ``_MISSING``. The recomputation is locked for the page's task, unless one is
    under way already."""
    page = background.may_serve_stale()
    if page is None:
        return _MISSING
    latest = store.get(f"dash-latest:{name}:{digest}")
    if not isinstance(latest, Latest) or latest.seconds < (background.background_after() or 0):
        return _MISSING
    value = store.get(latest.key, _MISSING)
    if value is _MISSING or not _lock(store, page, f"dash-refresh:{name}:{digest}"):
        return _MISSING
    page.as_of.append(latest.as_of)
    page.versions.append(latest.version)
    return value


def _lock(store, page: background.Page, lock: str) -> bool:
    """Take the value's refresh lock for the page's task (``cache.add``: one task per value
    at a time), or find it taken less than ``DASHBOARD_STALE_MAX_SECONDS`` ago; False when
    that refresh is overdue (its task lost or its worker stuck): the lock is dropped and the
    value computed in the request, and the next write's request enqueues again."""
    max_age = settings.DASHBOARD_STALE_MAX_SECONDS
    now = time.time()
    if store.add(lock, now, timeout=2 * max_age + 1):
        page.locks.append(lock)
        return True
    taken = store.get(lock)
    if isinstance(taken, float) and now - taken > max_age:
        logger.warning("dashboard refresh overdue (%s): computed in the request", lock)
        store.delete(lock)
        return False
    return True
