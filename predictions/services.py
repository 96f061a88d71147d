"""Writes for model runs."""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotations.models import Rater, Rating, Split

from .evaluation import score_lists
from .models import ModelRun

log = logging.getLogger(__name__)


def run_labels_and_predictions(run: ModelRun) -> tuple[list[list[int]], list[float]]:
    """Aligned (human labels, prediction) lists for the run's rated samples, valid raters only."""
    preds = dict(run.predictions.values_list("sample_id", "score"))
    labels: dict[int, list[int]] = {}
    ratings = (
        Rating.objects.filter(sample_id__in=preds.keys())
        .exclude(rater__in=Rater.objects.excluded())
        .order_by("sample_id", "position", "id")
        .values_list("sample_id", "score")
    )
    for sample_id, value in ratings:
        labels.setdefault(sample_id, []).append(value)
    keys = [key for key in preds if labels.get(key)]
    return [labels[k] for k in keys], [preds[k] for k in keys]


@transaction.atomic
def run_score(*, run: ModelRun) -> dict | None:
    """Score a run with the official metrics against the current human ratings.

    Samples without ratings (e.g. a redacted test file) are left out; a run with no rated
    sample gets no score.
    """
    labels, preds = run_labels_and_predictions(run)
    if not labels:
        run.scores = None
    else:
        result = score_lists(labels, preds)
        run.scores = {**result.as_dict(), "scored_at": timezone.now().isoformat()}
    run.save(update_fields=["scores"])
    return run.scores


# --- runs: create, enqueue, cancel, retry ------------------------------------------------
def run_enqueue(run_id: int) -> None:
    """Send the run to a worker once the surrounding transaction has committed.

    If the broker cannot be reached the run is marked failed with the reason, so that it
    can be retried once the broker is back.
    """
    from .runner import short_error
    from .tasks import run_model

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
    from .backends import get_backend
    from .runner import FitOnScoredSamples

    params = dict(params or {})
    get_backend(backend, **{k: v for k, v in params.items() if k != "fit_split"})
    fit_split = params.get("fit_split")
    if fit_split and fit_split == split.name:
        raise FitOnScoredSamples(f"a run cannot fit on the split it is scored on ({fit_split})")
    if fit_split and not Split.objects.filter(dataset=split.dataset, name=fit_split).exists():
        raise ValueError(f"no split {fit_split!r} in dataset {split.dataset}")
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
    the final count (:func:`predictions.runner.run_stopped`).
    """
    from .runner import stale_after

    now = timezone.now()
    live = Q(status=ModelRun.Status.RUNNING, heartbeat_at__gte=now - stale_after())
    active = ModelRun.objects.filter(pk=run.pk, status__in=ModelRun.ACTIVE)
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
        raise ValueError(f"run {run.pk} is {run.status}; only failed or cancelled runs retry")
    run_enqueue(run.pk)
    run.refresh_from_db()
    return run
