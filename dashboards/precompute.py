"""Precompute: the default scope of every dashboard page and JSON endpoint, computed and
cached in the Celery worker after a bulk write, so that a researcher's first visit finds it
cached instead of computing it in the request (over 1 s on 8 of 15 pages at 1M ratings;
docs/performance.md, Dashboards).

A bulk write (an import, a study opened) sends ``annotations.signals.bulk_data_changed``
after its commit; :func:`on_bulk_change` (connected in ``DashboardsConfig.ready``) enqueues
one ``dashboards.precompute`` task, which requests each page of :func:`default_paths` in the
worker through the stale refresh's machinery (:func:`dashboards.background.refresh`), as a
researcher (any: the figures depend on the scope, never on who asks). Only where the
background is on (a cache shared with the worker: Redis), as for the stale refresh: with
the demo's per-process memory cache the worker could not share what it computed.

One lock per page and data version (``dash-precompute:<version>:<path>``, taken with
``cache.add``, released by the refresh): two warms of the same data do not compute a page
twice; a warm for newer data is never held up by an older one. A page with a filter, another
kind, a sort, a run or a setup is not precomputed: it is computed in its request (and, after
a write, refreshed in the background once it has been computed).
"""

from __future__ import annotations

import logging
import time

from celery import signature
from django.conf import settings
from django.core.cache import caches
from django.urls import reverse

from ambisite.access import any_researcher
from annotations.data_versions import data_version

from . import background
from .cache import CACHE_FAILURES

logger = logging.getLogger(__name__)

# the pages and endpoints a researcher opens first (URL names without arguments), and the
# charts those pages fetch with the page's own (default) scope
PAGES = (
    "agreement",
    "agreement_json",
    "items",
    "leaderboard",
    "leaderboard_json",
    "endings",
    "kinds",
    "papers",
    "annotators",
)
CHARTS = ("rating-histogram", "homonym-sd", "label-distribution")


def default_paths() -> list[str]:
    """The path of each page and endpoint in its default scope (no query)."""
    paths = [reverse(f"dashboards:{name}") for name in PAGES]
    return paths + [reverse("dashboards:chart", args=[slug]) for slug in CHARTS]


def precompute() -> dict[str, int]:
    """Request each of :func:`default_paths` in this process as a researcher, which computes
    and caches its figures for the current data (a page found cached costs its cache reads).
    Returns each page's status code; a page whose lock another warm holds is left out, as is
    every page when there is no researcher (nobody could see them) or no cache."""
    user = any_researcher()
    if user is None:
        return {}
    store = caches[settings.DASHBOARD_CACHE]
    version = data_version(kind=None)  # every row: any write makes a new set of locks
    done: dict[str, int] = {}
    for path in default_paths():
        lock = f"dash-precompute:{version}:{path}"
        try:
            if not store.add(lock, time.time(), timeout=2 * settings.DASHBOARD_STALE_MAX_SECONDS):
                continue  # another warm of the same data computes it
        except CACHE_FAILURES as exc:
            logger.warning("dashboard precompute skipped, cache unavailable: %s", exc)
            return done
        try:
            done[path] = background.refresh(path, user.pk, [lock])
        except Exception:  # one page's failure leaves the others to warm
            logger.exception("dashboard precompute failed: %s", path)
    return done


def enqueue() -> None:
    """Send the precompute task (by its name: ``dashboards.tasks`` imports this module)."""
    signature("dashboards.precompute").delay()


def on_bulk_change(sender, **kwargs) -> None:
    """Receiver of ``annotations.signals.bulk_data_changed``: one precompute task, where
    the background is on."""
    if background.background_after() is None:
        return
    try:
        enqueue()
    except Exception as exc:  # a broker down: the first visit computes the page, as before
        logger.warning("dashboard precompute not enqueued: %s", exc)
