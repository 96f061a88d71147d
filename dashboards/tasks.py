"""Celery tasks of the dashboards (``autodiscover_tasks`` imports ``<app>.tasks``); the name
``dashboards.refresh_page`` is a string in the broker and never changes."""

from __future__ import annotations

from celery import shared_task

from .background import refresh


@shared_task(name="dashboards.refresh_page", ignore_result=True)
def refresh_page(path: str, user_id: int | None, locks: list[str]) -> None:
    """Compute and cache the figures of the dashboards page ``path`` for the current data
    version (:func:`dashboards.background.refresh`)."""
    refresh(path, user_id, locks)
