"""Celery tasks: take ids, load, call the worker loop or a training job. Services enqueue them
with on_commit; this is the only module (besides the in-process management commands) that
imports the loop (:mod:`predictions.runs.worker`) and training (:mod:`predictions.runs.training`).

Messages are acknowledged on receipt; a worker killed mid-run leaves the run ``running``,
and the next worker to start with the same node name (or any worker, once the run's
heartbeat is stale) re-queues it: :class:`predictions.apps.PredictionsConfig` connects
``worker_ready`` to :func:`predictions.runs.services.runs_recover`.
"""

from __future__ import annotations

from celery import current_task, shared_task

from predictions.runs.training import trained_model_train
from predictions.runs.worker import run_execute


@shared_task(name="predictions.run_model", ignore_result=True)
def run_model(run_id: int) -> None:
    worker = getattr(current_task.request, "hostname", None) or "celery"
    run_execute(run_id, worker=worker)


@shared_task(name="predictions.train_model", ignore_result=True)
def train_model(model_id: int) -> None:
    trained_model_train(model_id=model_id)
