"""Where Celery finds the predictions tasks (``autodiscover_tasks`` imports ``<app>.tasks``):
they live in :mod:`predictions.runs.tasks`; their names (``predictions.run_model``,
``predictions.train_model``) are strings in the broker and never change."""

from __future__ import annotations

from .runs.tasks import run_model, train_model

__all__ = ["run_model", "train_model"]
