"""The loop that executes a model run, batch by batch, safely against crashes and repeats.

A run is claimed by one worker (an atomic UPDATE), its samples without a prediction are fed
to the backend in batches, and each batch is written in one transaction with the
UNIQUE(run, sample) constraint ignoring rows that already exist. Cancellation is checked
between batches; a killed worker leaves a run ``running`` with a stale heartbeat, which
:func:`predictions.runs.services.runs_recover` (on worker start) or ``run_retry`` re-queues, and
the next execution skips every sample that already has a prediction.

A run holds predictions of its samples' current reference texts only. Each row carries the
text versions it was read at; :func:`write_batch` locks the batch's texts and writes only
the predictions whose versions are still current, and a reference edit (which takes the
same locks first) drops a running run's predictions of the samples it changes
(:func:`predictions.runs.services.predictions_outdate`). The samples this leaves without a
prediction are read again and predicted on their new texts before the run may finish, and
:func:`run_finish` checks, with the run's row locked as the edit's drop locks it, that none
is left. So a killed worker leaves no prediction of an old text behind either, and a
resumed run still predicts only what is missing.

Only :mod:`predictions.runs.tasks` (and the ``run_model --now`` command) call :func:`run_execute`.
"""

from __future__ import annotations

import logging
import subprocess
from collections.abc import Sequence
from numbers import Real

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from ambisite.db.statistics import analyze_after_commit
from ambisite.finite import undefined
from ambisite.progress import Progress
from annotations.models import Sample, Split
from annotations.text_versions import versions_locked
from predictions.backends import PredictionOutput, PredictorBackend
from predictions.models import ModelRun, Prediction
from predictions.runs.artifacts import backend_for
from predictions.runs.claims import run_claim, run_stopped, short_error, still_mine
from predictions.runs.rows import (
    Row,
    batch_group,
    batches,
    fit_rows,
    fit_splits_for,
    refuse_overlap,
    split_rows,
    stories_together,
)
from predictions.runs.scoring import run_score

log = logging.getLogger(__name__)

# Passes over the samples still without a prediction before a run fails: each pass after the
# first predicts only what reference edits dropped during the one before, so more means the
# texts keep changing under the run (or a bug), and the run must not loop for ever.
MAX_PASSES = 10


def output_check(row: Row, out: PredictionOutput) -> None:
    """A backend's prediction must be a finite number (and its distribution finite numbers):
    NaN or infinity would be stored, break the run's scores and every JSON that shows it.
    Raises ``ValueError`` naming the sample, which fails the run with that reason."""
    values = [out.score, *(out.distribution or ())]
    if any(not isinstance(v, Real) or undefined(v) for v in values):  # numpy's reals too
        raise ValueError(
            f"backend returned a non-finite prediction for sample {row.sample.get('id', row.pk)}:"
            f" score {out.score!r}, distribution {out.distribution!r}"
        )


@transaction.atomic
def write_batch(run_id: int, rows: Sequence[Row], outputs: Sequence[PredictionOutput]) -> int:
    """Store one batch (existing predictions are kept as they are); returns the new count.

    Only a prediction of a sample whose reference texts are still the ones its row was read
    at is written (compare-and-set, the texts locked until the write commits, so an edit
    either committed before and is seen here, or waits and then drops what was written);
    the others stay missing and :func:`run_execute` reads and predicts them again."""
    if len(outputs) != len(rows):
        raise ValueError(f"backend returned {len(outputs)} predictions for {len(rows)} samples")
    for row, out in zip(rows, outputs):
        output_check(row, out)
    current = versions_locked([row.pk for row in rows])
    Prediction.objects.bulk_create(
        [
            Prediction(
                run_id=run_id,
                sample_id=row.pk,
                score=float(out.score),
                raw_output=out.raw_output or "",
                distribution=list(out.distribution) if out.distribution is not None else None,
            )
            for row, out in zip(rows, outputs)
            if current.get(row.pk) == row.versions
        ],
        ignore_conflicts=True,
    )
    return Prediction.objects.filter(run_id=run_id).count()


def record_progress(run_id: int, done: int, progress: Progress) -> None:
    """Count, rate and heartbeat; ``done`` is kept true even for a run cancelled meanwhile."""
    ModelRun.objects.filter(pk=run_id).update(
        done=done, rate=progress.rate(done), heartbeat_at=timezone.now()
    )


def run_finish(run: ModelRun, *, worker: str) -> bool:
    """Mark the run finished and score it, in one transaction (never succeeded unscored);
    only while ``worker`` still holds it (a worker whose run was taken over or retried
    while it finished its last batch must not close the new execution's run). False, and
    the run left running, while a sample of its split has no prediction (a reference edit
    dropped it after the last pass): the worker predicts it again first. The run's row is
    locked from that check to the status, as a reference edit's drop locks it."""
    with transaction.atomic():
        held = ModelRun.objects.select_for_update(no_key=True).filter(
            pk=run.pk, status=ModelRun.Status.RUNNING, worker=worker
        )
        if not list(held.values_list("pk", flat=True)):
            run.refresh_from_db()
            return True
        if pending_samples(run).exists():
            return False
        done = Prediction.objects.filter(run_id=run.pk).count()
        status = ModelRun.Status.SUCCEEDED if done >= run.total else ModelRun.Status.FAILED
        error = (
            "" if status == ModelRun.Status.SUCCEEDED else f"only {done} of {run.total} predicted"
        )
        ModelRun.objects.filter(pk=run.pk).update(
            status=status, done=done, error=error, finished_at=timezone.now()
        )
        run.refresh_from_db()
        if status == ModelRun.Status.SUCCEEDED:
            analyze_after_commit(done, Prediction)  # its batches' rows, counted once at the end
            run_score(run=run)
    return True


def run_fail(run_id: int, error: str, *, worker: str) -> None:
    """Mark the run failed with ``error``, only while ``worker`` still holds it."""
    ModelRun.objects.filter(pk=run_id, status=ModelRun.Status.RUNNING, worker=worker).update(
        status=ModelRun.Status.FAILED, error=error[-4000:], finished_at=timezone.now()
    )


def fitted_on(splits: list[Split], fit: list[dict] | None) -> dict:
    """The run's record of what it was fitted on (``split``: names joined by "+")."""
    if not splits:
        return {}
    return {
        "split": "+".join(split.name for split in splits),
        "split_id": splits[0].pk,
        "split_ids": [split.pk for split in splits],
        "n_samples": len(fit or []),
    }


def prepare_backend(run: ModelRun) -> PredictorBackend:
    backend = backend_for(run.backend, run.params or {})
    fit_splits = fit_splits_for(run)
    fit = fit_rows(fit_splits) if fit_splits else None
    if fit:
        refuse_overlap(fit, [row.sample for row in split_rows(run.split)])

    def heartbeat() -> None:
        ModelRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now())

    backend.heartbeat = heartbeat  # type: ignore[method-assign]  # the documented hook
    backend.prepare(fit)
    prompt = getattr(backend, "prompt_version", "")
    ModelRun.objects.filter(pk=run.pk).update(
        heartbeat_at=timezone.now(),  # a long fit must not look like a dead worker
        code_version=code_version(),
        model_version=str(backend.model_version())[:200],
        prompt_version=str(prompt() if callable(prompt) else prompt or "")[:64],
        fitted_on=fitted_on(fit_splits, fit),
    )
    return backend


def pending_samples(run: ModelRun) -> QuerySet[Sample]:
    """The samples of the run's split that it holds no prediction of (yet, or any more)."""
    predicted = Prediction.objects.filter(run_id=run.pk).values("sample_id")
    return Sample.objects.filter(split_id=run.split_id).exclude(pk__in=predicted)


def pending_rows(run: ModelRun) -> list[Row]:
    """:func:`pending_samples` as backend rows, their texts read now: only theirs, so a pass
    after a reference edit reads the few samples it left without a prediction, not the
    whole split again."""
    return split_rows(run.split, only=pending_samples(run))


def predict_rows(
    run_id: int, backend: PredictorBackend, rows: list[Row], *, worker: str, progress: Progress
) -> bool:
    """Predict and write ``rows`` batch by batch; False when the run stopped being
    ``worker``'s (cancelled or taken over), checked before each batch."""
    key = batch_group(backend)
    group = (lambda row: key(row.sample)) if key else None
    if group:
        rows = stories_together(rows, group)
    for batch in batches(rows, backend.batch_size, group_of=group):
        if not still_mine(run_id, worker):
            return False
        outputs = backend.predict_batch([row.sample for row in batch])
        done = write_batch(run_id, batch, outputs)
        record_progress(run_id, done, progress)
    return True


def run_execute(run_id: int, *, worker: str = "local") -> ModelRun | None:
    """Execute (or resume) a run; returns it, or None when another worker holds it.

    Passes over the samples without a prediction until none is left: a reference edit
    during a pass leaves its samples without one (never with one of the old text), and
    the next pass reads their new texts."""
    if not run_claim(run_id, worker):
        log.info("run %s is not claimable by %s", run_id, worker)
        return None
    run = ModelRun.objects.select_related("split").get(pk=run_id)
    try:
        backend = prepare_backend(run)
        todo = pending_rows(run)
        progress = Progress(total=run.total, done_at_start=run.total - len(todo))
        for _ in range(MAX_PASSES):
            if not predict_rows(run_id, backend, todo, worker=worker, progress=progress):
                break  # cancelled or taken over
            if run_finish(run, worker=worker):
                break
            todo = pending_rows(run)
        else:
            missing = pending_samples(run).count()
            raise RuntimeError(
                f"{missing} samples still had no prediction after {MAX_PASSES} passes"
                " (their reference texts kept changing); retry the run"
            )
    except Exception as exc:  # the run records why it failed; the worker lives on
        log.exception("run %s failed", run_id)  # the full traceback goes to the log only
        run_fail(run_id, short_error(exc), worker=worker)
    run_stopped(run_id)  # cancelled (between batches, during the last one or while failing)
    return ModelRun.objects.get(pk=run_id)


def code_version() -> str:
    """The git commit of the code that made the predictions, if it is a checkout."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"],
            cwd=settings.BASE_DIR,
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip()[:64] if out.returncode == 0 else ""
