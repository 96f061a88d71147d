"""Celery tasks of the dashboards (``autodiscover_tasks`` imports ``<app>.tasks``); the names
``dashboards.refresh_page`` and ``dashboards.precompute`` are strings in the broker and never
change (:mod:`dashboards.background` and :mod:`dashboards.precompute` send them by name)."""

from __future__ import annotations

from celery import shared_task

from .background import refresh
from .precompute import precompute


@shared_task(name="dashboards.refresh_page", ignore_result=True)
def refresh_page(path: str, user_id: int | None, locks: list[str]) -> None:
    """Compute and cache the figures of the dashboards page ``path`` for the current data
    version (:func:`dashboards.background.refresh`)."""
    refresh(path, user_id, locks)


@shared_task(name="dashboards.precompute", ignore_result=True)
def precompute_pages() -> None:
    """Compute and cache the default scope of every dashboard page and JSON endpoint
    (:func:`dashboards.precompute.precompute`), after a bulk write."""
    precompute()
