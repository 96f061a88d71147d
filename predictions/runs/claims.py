"""A model run's state in the database as the worker loop and the services both see it:
claiming, liveness (heartbeat), stopping after a cancel, and the error text a run shows."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from predictions.models import ModelRun, Prediction


def stale_after() -> timedelta:
    return timedelta(seconds=getattr(settings, "AMBISITE_RUN_STALE_SECONDS", 600))


def run_claim(run_id: int, worker: str) -> bool:
    """Atomically take a queued run (or one this node or a dead worker left running)."""
    now = timezone.now()
    mine = Q(status=ModelRun.Status.RUNNING) & (
        Q(worker=worker) | Q(heartbeat_at__lt=now - stale_after()) | Q(heartbeat_at=None)
    )
    claimed = (
        ModelRun.objects.filter(pk=run_id)
        .filter(Q(status=ModelRun.Status.QUEUED) | mine)
        .update(status=ModelRun.Status.RUNNING, worker=worker, heartbeat_at=now, error="")
    )
    ModelRun.objects.filter(pk=run_id, started_at=None).update(started_at=now)
    return bool(claimed)


def heartbeat_is_fresh(run: ModelRun) -> bool:
    return run.heartbeat_at is not None and run.heartbeat_at >= timezone.now() - stale_after()


def run_is_stopping(run: ModelRun) -> bool:
    """A run cancelled while a live worker was on it, until that worker has stopped: its
    last batch may still add predictions (``finished_at`` is set when the worker stops)."""
    return (
        run.status == ModelRun.Status.CANCELLED
        and run.finished_at is None
        and heartbeat_is_fresh(run)
    )


def run_stopped(run_id: int) -> None:
    """The worker confirms a cancel: the final count, and the time it stopped."""
    ModelRun.objects.filter(pk=run_id, status=ModelRun.Status.CANCELLED, finished_at=None).update(
        done=Prediction.objects.filter(run_id=run_id).count(), finished_at=timezone.now()
    )


def still_mine(run_id: int, worker: str) -> bool:
    """False once the run was cancelled (or taken over), checked between batches."""
    return ModelRun.objects.filter(
        pk=run_id, status=ModelRun.Status.RUNNING, worker=worker
    ).exists()


def short_error(exc: BaseException) -> str:
    """What ``run.error`` shows for any backend's failure: the exception's class and the first
    line of its message (an HTTP backend's message starts with the status), at most 300
    characters; no traceback, paths or request details."""
    lines = str(exc).strip().splitlines()
    first = lines[0].strip() if lines else ""
    text = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    return text[:300]
