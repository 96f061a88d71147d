"""Celery tasks: take ids, load, call the runner or a service. Enqueue with on_commit.

Messages are acknowledged on receipt; a worker killed mid-run leaves the run ``running``,
and the next worker to start with the same node name (or any worker, once the run's
heartbeat is stale) re-queues it from :func:`_recover_lost_runs`.
"""

from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import worker_ready

log = logging.getLogger(__name__)


@shared_task(name="predictions.run_model", ignore_result=True)
def run_model(run_id: int) -> None:
    from celery import current_task

    from .runner import run_execute

    worker = getattr(current_task.request, "hostname", None) or "celery"
    run_execute(run_id, worker=worker)


@shared_task(name="predictions.train_model", ignore_result=True)
def train_model(model_id: int) -> None:
    from .training import trained_model_train

    trained_model_train(model_id=model_id)


@worker_ready.connect
def _recover_lost_runs(sender=None, **kwargs) -> None:
    from .runner import runs_recover

    hostname = getattr(sender, "hostname", None)
    if not hostname:
        return
    recovered = runs_recover(worker=hostname)
    if recovered:
        log.warning("re-queued runs left running by a lost worker: %s", recovered)
