"""Writes for model runs and trained models: create, enqueue, cancel, retry, recover.

Services enqueue Celery tasks (:mod:`predictions.runs.tasks`); the tasks run the worker loop and
the training jobs, which services never import.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotations.models import Split
from predictions.backends import ParamError, get_backend
from predictions.errors import PredictionsError, RunStateError
from predictions.models import IMPORT_BACKEND, ModelRun, Prediction, TrainedModel
from predictions.runs.claims import short_error, stale_after
from predictions.runs.rows import refuse_fit_on_scored, split_names, trained_split_names
from predictions.runs.tasks import run_model, train_model

log = logging.getLogger(__name__)


# --- runs: create, enqueue, cancel, retry ------------------------------------------------
def default_name(name: str, what: str, *, on: object = None, of: Sequence[int] = ()) -> str:
    """``name``, or the name a run or trained model gets when none is given: the backend or
    kind (``what``), "<kind> on <split>" for a trained model, "<kind> of <ids>" for a derived
    run. Views, commands and the API leave the default to the services, which call this."""
    if name:
        return name
    if on is not None:
        return f"{what} on {on}"
    if of:
        return f"{what} of {','.join(str(pk) for pk in of)}"
    return what


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


def missing_splits(names: list[str], split: Split) -> None:
    """PredictionsError naming the first of ``names`` that is no split of ``split``'s dataset."""
    known = set(
        Split.objects.filter(dataset=split.dataset, name__in=names).values_list("name", flat=True)
    )
    for name in names:
        if name not in known:
            raise PredictionsError(f"no split {name!r} in dataset {split.dataset}")


def refuse_fit_split_param(params: dict) -> None:
    """``fit_split`` is a field of runs and training jobs, no longer one of their ``params``:
    an old caller that still puts it there is told where it goes (ParamError)."""
    if "fit_split" in params:
        raise ParamError(
            "fit_split",
            'not a parameter: give "fit_split" beside "params" (the run\'s own field), '
            'e.g. "fit_split": "train,dev"',
        )


@transaction.atomic
def run_create(
    *,
    name: str,
    backend: str,
    params: dict,
    split: Split,
    fit_split: str | Sequence[str] = "",
    created_by=None,
    enqueue: bool = True,
) -> ModelRun:
    """Create a queued run of ``backend`` over every sample of ``split`` and enqueue it.

    The backend name is checked against the registry (``UnknownBackend``) and its parameters
    by constructing it (a ``ValueError``; ``ParamError`` names the field: a misspelt one, or a
    ``base_url``, ``api_key``, ``api_key_env`` or ``fit_split``, which no run's params may
    give); ``fit_split`` must name other splits of the same dataset (one name, ``"train,dev"``
    or a list; stored as ``"train,dev"``), and a trained model named by ``model``/``encoder``
    must not have been trained on ``split`` (``FitOnScoredSamples``).
    ``enqueue=False`` leaves the run queued for the caller to execute in-process
    (``run_model --now``).
    """
    params = dict(params or {})
    refuse_fit_split_param(params)
    get_backend(backend, **params)
    fit_names = split_names(fit_split)
    refuse_fit_on_scored(fit_names, split.name)
    missing_splits(fit_names, split)
    for key in ("model", "encoder"):  # a model trained on the scored split scores it too
        value = params.get(key)
        if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
            trained = TrainedModel.objects.filter(pk=int(value)).first()
            if trained is not None:
                refuse_fit_on_scored(trained_split_names(trained), split.name)
    run = ModelRun.objects.create(
        name=default_name(name, backend),
        backend=backend,
        params=params,
        split=split,
        fit_split=",".join(fit_names),
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
    the final count (:func:`predictions.runs.claims.run_stopped`). Any other run is refused
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
    """Re-queue a failed or cancelled run; predictions already made are kept and skipped. An
    imported or derived run (``ModelRun.worker_made`` false: only a migration fails one) is
    refused, saying what makes its predictions again: no worker can."""
    if not run.worker_made:
        imported = run.backend == IMPORT_BACKEND
        raise RunStateError(
            f"run {run.pk} holds {'imported' if imported else 'derived'} predictions, which no"
            f" worker can make: {'import the file' if imported else 'derive it'} again"
        )
    updated = ModelRun.objects.filter(pk=run.pk, status__in=ModelRun.RETRYABLE).update(
        status=ModelRun.Status.QUEUED, error="", finished_at=None, worker="", rate=None
    )
    if not updated:
        raise RunStateError(f"run {run.pk} is {run.status}; only failed or cancelled runs retry")
    run_enqueue(run.pk)
    run.refresh_from_db()
    return run


def predictions_outdate(*, sample_ids: list[int]) -> int:
    """The samples' reference texts changed (``annotations.signals.reference_texts_changed``,
    in the edit's transaction): a run that has not succeeded yet drops its predictions of
    them, so that its retry (or its resumed execution) predicts them on the new text instead
    of keeping what the model said about the old one; its ``done`` count follows. A running
    run's worker predicts them again before it finishes (:mod:`predictions.runs.worker`):
    the runs are locked here, as its ``run_finish`` locks its run, so a run either succeeded
    before this edit (and keeps its predictions) or finds them missing. A finished run keeps
    its predictions and is scored against the new labels, as the scoring pages say. Returns
    how many predictions were dropped."""
    holding = Prediction.objects.filter(sample_id__in=sample_ids).values("run_id")
    unfinished = ModelRun.objects.exclude(status=ModelRun.Status.SUCCEEDED).filter(pk__in=holding)
    run_ids = list(
        unfinished.select_for_update(no_key=True).order_by("pk").values_list("pk", flat=True)
    )
    stale = Prediction.objects.filter(run_id__in=run_ids, sample_id__in=sample_ids)
    dropped, _ = stale.delete()
    for run_id in run_ids:
        ModelRun.objects.filter(pk=run_id).update(
            done=Prediction.objects.filter(run_id=run_id).count()
        )
    return dropped


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
    fit_split: str | Sequence[str] = "",
    created_by=None,
) -> TrainedModel:
    """Queue the training of a cross-encoder (or ``kind="biencoder"``) on ``split``.

    ``params``: ``epochs`` (2), ``seed`` (13), ``batch_size``, ``lr``, ``max_seq_length``,
    for a bi-encoder also ``layer``, and ``limit`` (train on the first N samples only, e.g.
    for a smoke test). ``fit_split``: several splits of the dataset (e.g. ``"train,dev"``),
    ``split`` among them, to train on all of them; no run may then score any of them.
    """
    kinds = TrainedModel.Kind.values
    if kind not in kinds:
        raise PredictionsError(f"unknown kind {kind!r} (known: {', '.join(kinds)})")
    params = dict(params or {})
    refuse_fit_split_param(params)
    unknown = set(params) - {*TrainedModel.TRAIN_PARAMS[TrainedModel.Kind(kind)], "limit"}
    if unknown:
        raise PredictionsError(f"unknown training parameters: {', '.join(sorted(unknown))}")
    names = split_names(fit_split)
    missing_splits(names, split)
    if names and split.name not in names:
        raise PredictionsError(f"fit_split {names} must include the job's split {split.name!r}")
    model = TrainedModel.objects.create(
        name=default_name(name, kind, on="+".join(names) or split),
        kind=kind,
        split=split,
        fit_split=",".join(names),
        params=params,
        created_by=created_by,
    )
    transaction.on_commit(lambda: train_model.delay(model.pk))
    return model
