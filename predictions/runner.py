"""The loop that executes a model run, batch by batch, safely against crashes and repeats.

A run is claimed by one worker (an atomic UPDATE), its samples without a prediction are fed
to the backend in batches, and each batch is written in one transaction with the
UNIQUE(run, sample) constraint ignoring rows that already exist. Cancellation is checked
between batches; a killed worker leaves a run ``running`` with a stale heartbeat, which
:func:`runs_recover` (on worker start) or ``run_retry`` re-queues, and the next execution
skips every sample that already has a prediction.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotations.models import Rating, Sample, Split

from .backends import PredictionOutput, PredictorBackend, get_backend
from .models import ModelRun, Prediction

log = logging.getLogger(__name__)

TEXT_KEYS = ("homonym", "judged_meaning", "example_sentence", "precontext", "sentence", "ending")
STORY_KEYS = ("homonym", "precontext", "sentence", "ending")


class FitOnScoredSamples(ValueError):
    """A run or derived run asked to fit on the samples it is scored on."""


# --- progress (pure) -------------------------------------------------------------------
@dataclass
class Progress:
    """Rate and time left for one execution; ``done_at_start`` excludes resumed work."""

    total: int
    done_at_start: int
    started: float = field(default_factory=time.monotonic)

    def rate(self, done: int, now: float | None = None) -> float | None:
        elapsed = (time.monotonic() if now is None else now) - self.started
        made = done - self.done_at_start
        if made <= 0 or elapsed <= 0:
            return None
        return made / elapsed

    def eta(self, done: int, now: float | None = None) -> float | None:
        rate = self.rate(done, now)
        return None if rate is None else max(0, self.total - done) / rate


def batches(items: Sequence, size: int, *, group_of=None) -> Iterator[list]:
    """Consecutive batches of about ``size``; with ``group_of`` no group is split apart."""
    size = max(1, int(size))
    batch: list = []
    for index, item in enumerate(items):
        starts_group = (
            group_of is None or index == 0 or group_of(item) != group_of(items[index - 1])
        )
        if len(batch) >= size and starts_group:
            yield batch
            batch = []
        batch.append(item)
    if batch:
        yield batch


def stories_together(items: Sequence, key) -> list:
    """``items`` reordered so that items with the same ``key`` are adjacent (groups in order
    of first appearance, items in their own order), as :func:`batches` needs for grouping."""
    first: dict = {}
    for index, item in enumerate(items):
        first.setdefault(key(item), index)
    return sorted(items, key=lambda item: first[key(item)])


# --- samples as plain dicts --------------------------------------------------------------
@dataclass(frozen=True)
class Row:
    pk: int
    story_id: int
    homonym: str
    sample: dict


def split_rows(split: Split, *, labels: bool = False) -> list[Row]:
    """The split's samples in file order as backend dicts (labels only when asked, for fitting:
    ``choices`` from valid ratings and their ``average``)."""
    qs = Sample.objects.filter(split=split).with_related().order_by("position")
    scores: dict[int, list[int]] = {}
    if labels:
        valid = Rating.objects.valid().filter(sample__split=split).order_by("position", "id")
        for sample_id, value in valid.values_list("sample_id", "score"):
            scores.setdefault(sample_id, []).append(value)
    rows = []
    for s in qs:
        d = {
            "id": s.dataset_id,
            "homonym": s.story.setup.homonym.form,
            "judged_meaning": s.sense.gloss,
            "example_sentence": s.sense.example_sentence,
            "precontext": s.story.setup.precontext,
            "sentence": s.story.setup.sentence,
            "ending": s.story.ending,
        }
        if labels:
            if not scores.get(s.pk):
                continue
            d["choices"] = scores[s.pk]
            d["average"] = sum(scores[s.pk]) / len(scores[s.pk])
        rows.append(Row(s.pk, s.story_id, d["homonym"], d))
    return rows


def fit_split_for(run: ModelRun) -> Split | None:
    """The split a run's backend fits on (``params["fit_split"]``, same dataset), never its own."""
    name = (run.params or {}).get("fit_split")
    if not name:
        return None
    split = Split.objects.get(dataset_id=run.split.dataset_id, name=name)
    if split.pk == run.split_id:
        raise FitOnScoredSamples(f"run {run.pk} cannot fit on split {name!r}: it is scored on it")
    return split


# --- claiming, progress writes, finishing ------------------------------------------------
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


@transaction.atomic
def write_batch(run_id: int, rows: Sequence[Row], outputs: Sequence[PredictionOutput]) -> int:
    """Store one batch (existing predictions are kept as they are); returns the new count."""
    if len(outputs) != len(rows):
        raise ValueError(f"backend returned {len(outputs)} predictions for {len(rows)} samples")
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
        ],
        ignore_conflicts=True,
    )
    return Prediction.objects.filter(run_id=run_id).count()


def record_progress(run_id: int, done: int, progress: Progress) -> None:
    """Count, rate and heartbeat; ``done`` is kept true even for a run cancelled meanwhile."""
    ModelRun.objects.filter(pk=run_id).update(
        done=done, rate=progress.rate(done), heartbeat_at=timezone.now()
    )


def run_finish(run: ModelRun, *, done: int) -> None:
    """Mark the run finished and score it, in one transaction (never succeeded unscored)."""
    from .services import run_score

    status = ModelRun.Status.SUCCEEDED if done >= run.total else ModelRun.Status.FAILED
    error = "" if status == ModelRun.Status.SUCCEEDED else f"only {done} of {run.total} predicted"
    with transaction.atomic():
        finished = ModelRun.objects.filter(pk=run.pk, status=ModelRun.Status.RUNNING).update(
            status=status, done=done, error=error, finished_at=timezone.now()
        )
        run.refresh_from_db()
        if finished and status == ModelRun.Status.SUCCEEDED:
            run_score(run=run)


def short_error(exc: BaseException) -> str:
    """What ``run.error`` shows for any backend's failure: the exception's class and the first
    line of its message (an HTTP backend's message starts with the status), at most 300
    characters; no traceback, paths or request details."""
    lines = str(exc).strip().splitlines()
    first = lines[0].strip() if lines else ""
    text = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    return text[:300]


def run_fail(run_id: int, error: str) -> None:
    ModelRun.objects.filter(pk=run_id, status=ModelRun.Status.RUNNING).update(
        status=ModelRun.Status.FAILED, error=error[-4000:], finished_at=timezone.now()
    )


# --- the loop -----------------------------------------------------------------------------
def prepare_backend(run: ModelRun) -> PredictorBackend:
    params = {k: v for k, v in (run.params or {}).items() if k != "fit_split"}
    backend = get_backend(run.backend, **params)
    fit_split = fit_split_for(run)
    fit = [row.sample for row in split_rows(fit_split, labels=True)] if fit_split else None
    backend.heartbeat = lambda: ModelRun.objects.filter(pk=run.pk).update(
        heartbeat_at=timezone.now()
    )
    backend.prepare(fit)
    prompt = getattr(backend, "prompt_version", "")
    ModelRun.objects.filter(pk=run.pk).update(
        heartbeat_at=timezone.now(),  # a long fit must not look like a dead worker
        code_version=code_version(),
        model_version=str(backend.model_version())[:200],
        prompt_version=str(prompt() if callable(prompt) else prompt or "")[:64],
        fitted_on={"split": fit_split.name, "split_id": fit_split.pk, "n_samples": len(fit)}
        if fit_split
        else {},
    )
    return backend


def pending_rows(run: ModelRun) -> list[Row]:
    done = set(Prediction.objects.filter(run=run).values_list("sample_id", flat=True))
    return [row for row in split_rows(run.split) if row.pk not in done]


def run_execute(run_id: int, *, worker: str = "local") -> ModelRun | None:
    """Execute (or resume) a run; returns it, or None when another worker holds it."""
    if not run_claim(run_id, worker):
        log.info("run %s is not claimable by %s", run_id, worker)
        return None
    run = ModelRun.objects.select_related("split").get(pk=run_id)
    try:
        backend = prepare_backend(run)
        todo = pending_rows(run)
        done = run.total - len(todo)
        progress = Progress(total=run.total, done_at_start=done)
        group = (lambda row: row.story_id) if backend.needs_whole_stories else None
        if group:
            todo = stories_together(todo, group)
        for batch in batches(todo, backend.batch_size, group_of=group):
            if not still_mine(run_id, worker):
                run_stopped(run_id)
                return ModelRun.objects.get(pk=run_id)
            outputs = backend.predict_batch([row.sample for row in batch])
            done = write_batch(run_id, batch, outputs)
            record_progress(run_id, done, progress)
        run_finish(run, done=Prediction.objects.filter(run_id=run_id).count())
    except Exception as exc:  # the run records why it failed; the worker lives on
        log.exception("run %s failed", run_id)  # the full traceback goes to the log only
        run_fail(run_id, short_error(exc))
    run_stopped(run_id)  # cancelled during the last batch (or while failing)
    return ModelRun.objects.get(pk=run_id)


def runs_recover(*, worker: str) -> list[int]:
    """Re-queue runs left ``running`` by this (restarted) node or by a silent worker."""
    stale = timezone.now() - stale_after()
    lost = ModelRun.objects.filter(status=ModelRun.Status.RUNNING).filter(
        Q(worker=worker) | Q(heartbeat_at__lt=stale) | Q(heartbeat_at=None)
    )
    ids = list(lost.values_list("pk", flat=True))
    from .services import run_enqueue

    for run_id in ids:
        if ModelRun.objects.filter(pk=run_id, status=ModelRun.Status.RUNNING).update(
            status=ModelRun.Status.QUEUED, worker=""
        ):
            run_enqueue(run_id)
    return ids


def code_version() -> str:
    """The git commit of the code that made the predictions, if it is a checkout."""
    import subprocess

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


# --- files, outside the database (the ``predict`` command) -----------------------------
def text_key(sample: dict) -> tuple:
    return tuple(str(sample.get(k, "")).strip() for k in TEXT_KEYS)


def story_key(sample: dict) -> tuple:
    """The story a sample belongs to, whatever sense it judges."""
    return tuple(str(sample.get(k, "")).strip() for k in STORY_KEYS)


def predict_samples(
    backend: PredictorBackend, samples: Sequence[dict], fit: Sequence[dict] | None = None
) -> list[PredictionOutput]:
    """Prepare ``backend`` on ``fit`` and predict ``samples`` batch by batch, in order.

    Refuses (:class:`FitOnScoredSamples`) when a fit sample is also being predicted.
    """
    if fit:
        overlap = {text_key(s) for s in fit} & {text_key(s) for s in samples}
        if overlap:
            raise FitOnScoredSamples(f"{len(overlap)} fit samples are also being predicted")
    backend.prepare(list(fit) if fit else None)
    indexed = list(enumerate(samples))
    group = (lambda item: story_key(item[1])) if backend.needs_whole_stories else None
    if group:
        indexed = stories_together(indexed, group)
    outputs: list[PredictionOutput | None] = [None] * len(samples)
    for batch in batches(indexed, backend.batch_size, group_of=group):
        for (index, _), out in zip(batch, backend.predict_batch([s for _, s in batch])):
            outputs[index] = out
    if any(out is None for out in outputs):
        raise ValueError("the backend returned fewer predictions than samples")
    return outputs
