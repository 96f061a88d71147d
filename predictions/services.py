"""Writes for model runs and trained models: create, enqueue, cancel, retry, recover.

Services enqueue Celery tasks (:mod:`predictions.tasks`); the tasks run the worker loop and
the training jobs, which services never import.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotations.models import Split

from .backends import get_backend
from .claims import short_error, stale_after
from .errors import FitOnScoredSamples, PredictionsError, RunStateError
from .models import ModelRun, TrainedModel
from .tasks import run_model, train_model

log = logging.getLogger(__name__)


# --- runs: create, enqueue, cancel, retry ------------------------------------------------
def run_enqueue(run_id: int) -> None:
    """Send the run to a worker once the surrounding transaction has committed.

    If the broker cannot be reached the run is marked failed with the reason, so that it
    can be retried once the broker is back.
    """
    def send() -> None:
        try:
            run_model.delay(run_id)
        except Exception as exc:  # kombu raises many kinds; all mean "not queued"
            log.exception("could not queue run %s", run_id)
            ModelRun.objects.filter(pk=run_id, status=ModelRun.Status.QUEUED).update(
                status=ModelRun.Status.FAILED,
                error=f"could not reach the task broker ({short_error(exc)})"[:300],
                finished_at=timezone.now(),
            )

    transaction.on_commit(send)


@transaction.atomic
def run_create(
    *,
    name: str,
    backend: str,
    params: dict,
    split: Split,
    created_by=None,
    enqueue: bool = True,
) -> ModelRun:
    """Create a queued run of ``backend`` over every sample of ``split`` and enqueue it.

    The backend name is checked against the registry (``UnknownBackend``) and its parameters
    by constructing it (``TypeError``/``ValueError``; ``ParamError`` names the field, e.g. a
    ``base_url``, ``api_key`` or ``api_key_env``, which no run may give); a ``fit_split``
    parameter must name another split of the same dataset (``FitOnScoredSamples``).
    ``enqueue=False`` leaves the run queued for the caller to execute in-process
    (``run_model --now``).
    """
    params = dict(params or {})
    get_backend(backend, **{k: v for k, v in params.items() if k != "fit_split"})
    fit_split = params.get("fit_split")
    if fit_split and fit_split == split.name:
        raise FitOnScoredSamples(f"a run cannot fit on the split it is scored on ({fit_split})")
    if fit_split and not Split.objects.filter(dataset=split.dataset, name=fit_split).exists():
        raise PredictionsError(f"no split {fit_split!r} in dataset {split.dataset}")
    run = ModelRun.objects.create(
        name=name or backend,
        backend=backend,
        params=params,
        split=split,
        total=split.samples.count(),
        created_by=created_by,
    )
    if enqueue:
        run_enqueue(run.pk)
    return run


@transaction.atomic
def run_cancel(*, run: ModelRun) -> ModelRun:
    """Stop a queued or running run; the worker stops before its next batch.

    A queued run, or one whose worker has gone silent, is finished at once; a run with a
    live worker stays unfinished (``finished_at`` empty) until that worker stops and writes
    the final count (:func:`predictions.claims.run_stopped`). Any other run is refused
    (:class:`RunStateError`).
    """
    now = timezone.now()
    live = Q(status=ModelRun.Status.RUNNING, heartbeat_at__gte=now - stale_after())
    active = ModelRun.objects.select_for_update().filter(pk=run.pk, status__in=ModelRun.ACTIVE)
    if not active.exists():
        run.refresh_from_db()
        raise RunStateError(
            f"run {run.pk} is {run.status}; only queued or running runs can be cancelled"
        )
    active.filter(live).update(status=ModelRun.Status.CANCELLED, finished_at=None)
    active.update(status=ModelRun.Status.CANCELLED, finished_at=now)
    run.refresh_from_db()
    return run


@transaction.atomic
def run_retry(*, run: ModelRun) -> ModelRun:
    """Re-queue a failed or cancelled run; predictions already made are kept and skipped."""
    updated = ModelRun.objects.filter(pk=run.pk, status__in=ModelRun.RETRYABLE).update(
        status=ModelRun.Status.QUEUED, error="", finished_at=None, worker="", rate=None
    )
    if not updated:
        raise RunStateError(f"run {run.pk} is {run.status}; only failed or cancelled runs retry")
    run_enqueue(run.pk)
    run.refresh_from_db()
    return run


def runs_recover(*, worker: str) -> list[int]:
    """Re-queue runs left ``running`` by this (restarted) node or by a silent worker."""
    stale = timezone.now() - stale_after()
    lost = ModelRun.objects.filter(status=ModelRun.Status.RUNNING).filter(
        Q(worker=worker) | Q(heartbeat_at__lt=stale) | Q(heartbeat_at=None)
    )
    ids = list(lost.values_list("pk", flat=True))
    for run_id in ids:
        if ModelRun.objects.filter(pk=run_id, status=ModelRun.Status.RUNNING).update(
            status=ModelRun.Status.QUEUED, worker=""
        ):
            run_enqueue(run_id)
    return ids


@transaction.atomic
def trained_model_create(
    *,
    name: str,
    split: Split,
    params: dict | None = None,
    kind: str = TrainedModel.Kind.CROSSENCODER,
    created_by=None,
) -> TrainedModel:
    """Queue the training of a cross-encoder (or ``kind="biencoder"``) on ``split``.

    ``params``: ``epochs`` (2), ``seed`` (13), ``batch_size``, ``lr``, ``max_seq_length``,
    for a bi-encoder also ``layer``, and ``limit`` (train on the first N samples only, e.g.
    for a smoke test).
    """
    kinds = TrainedModel.Kind.values
    if kind not in kinds:
        raise PredictionsError(f"unknown kind {kind!r} (known: {', '.join(kinds)})")
    params = dict(params or {})
    unknown = set(params) - set(TrainedModel.TRAIN_PARAMS[kind]) - {"limit"}
    if unknown:
        raise PredictionsError(f"unknown training parameters: {', '.join(sorted(unknown))}")
    model = TrainedModel.objects.create(
        name=name, kind=kind, split=split, params=params, created_by=created_by
    )
    transaction.on_commit(lambda: train_model.delay(model.pk))
    return model
