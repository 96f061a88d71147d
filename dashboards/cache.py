"""The dashboards' cache: what is costly to recompute (figures, orders, per-rater and
per-setup tables) is kept in the cache under a key made of the page's name, its scope and
filters (``SampleFilterForm.query_string``), its own parameters and the scope's data version
(``annotations.data_versions``). Every write a figure depends on bumps that version in its
transaction, so a changed scope is recomputed on its next request and an old entry is never
read again (it expires after ``DASHBOARD_CACHE_SECONDS``, only to free the memory).

The cache is ``settings.DASHBOARD_CACHE`` (an alias of ``CACHES``, the default one unless
set): a per-process memory cache or Redis. A cache that does not answer costs the page its
speed, never its answer: the figures are computed as without a cache and a warning logged.
"""

from __future__ import annotations

import hashlib
import logging
import weakref
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings
from django.core.cache import caches
from redis.exceptions import RedisError

from annotations.data_versions import data_version

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


def cache_key(name: str, form: SampleFilterForm, version: str, params: dict) -> str:
    """``dash:<name>:<digest of the filters and params>:<version>`` (short, no spaces)."""
    own = "&".join(f"{k}={params[k]}" for k in sorted(params))
    digest = hashlib.sha256(f"{form.query_string()}|{own}".encode()).hexdigest()[:32]
    return f"dash:{name}:{digest}:{version}"


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
    return _cached(cache_key(name, form, version, params), name, compute)


def cached_every_kind(
    name: str, form: SampleFilterForm, compute: Callable[[], T], **params: object
) -> T:
    """:func:`cached` for a page that shows several task kinds (relatedness, sense choice,
    the paper analyses): kept until any kind's data in the scope's splits changes."""
    version = scope_version(form, every_kind=True)
    return _cached(cache_key(name, form, version, params), name, compute)


def _cached(key: str, name: str, compute: Callable[[], T]) -> T:
    store = caches[_alias()]
    try:
        found = store.get(key, _MISSING)
    except CACHE_FAILURES as exc:
        logger.warning("dashboard cache unavailable (read of %s): %s", name, exc)
        return compute()
    if found is not _MISSING:
        return found  # stored by this function for this key
    value = compute()
    try:
        store.set(key, value, timeout=settings.DASHBOARD_CACHE_SECONDS)
    except CACHE_FAILURES as exc:
        logger.warning("dashboard cache unavailable (write of %s): %s", name, exc)
    return value
