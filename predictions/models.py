"""Model runs: a predictor backend applied to a set of samples, one prediction each."""

from __future__ import annotations

import sys
from pathlib import Path

from django.conf import settings
from django.db import models
from django.db.models import Q

# The bounds of a finite score. Not float("inf"): SQLite's schema editor writes it into the
# constraint as ``inf``, which SQLite reads as a column's name. NaN fails both bounds in
# PostgreSQL (it sorts above every number) and SQLite stores it as NULL (refused by NOT NULL).
LARGEST_FLOAT = sys.float_info.max


class ModelRunQuerySet(models.QuerySet):
    def finished(self) -> ModelRunQuerySet:
        return self.filter(status=ModelRun.Status.SUCCEEDED)

    def active(self) -> ModelRunQuerySet:
        return self.filter(status__in=ModelRun.ACTIVE)

    def with_split(self) -> ModelRunQuerySet:
        return self.select_related("split__dataset", "created_by")


# The backend names of runs no worker computes: predictions imported from a file
# (``predictions.io.importers``) and runs derived from other runs
# (``predictions.runs.postprocess``).
IMPORT_BACKEND = "import"
DERIVED_PREFIX = "derived:"


class ModelRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    ACTIVE = (Status.QUEUED, Status.RUNNING)
    RETRYABLE = (Status.FAILED, Status.CANCELLED)

    name = models.CharField(max_length=200)
    backend = models.CharField(max_length=100, help_text="Registry name of the backend.")
    params = models.JSONField(default=dict, blank=True)
    split = models.ForeignKey(
        "annotations.Split", on_delete=models.PROTECT, related_name="model_runs"
    )
    fit_split = models.CharField(
        max_length=200,
        blank=True,
        help_text='Splits of the same dataset the backend fits on, in order ("train" or '
        '"train,dev"); never the split it scores. Empty: it fits on nothing.',
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    rate = models.FloatField(null=True, blank=True, help_text="Samples per second, recently.")
    worker = models.CharField(max_length=200, blank=True, help_text="Celery node running it.")
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)
    code_version = models.CharField(max_length=64, blank=True)
    prompt_version = models.CharField(max_length=64, blank=True)
    model_version = models.CharField(max_length=200, blank=True)
    fitted_on = models.JSONField(
        default=dict, blank=True, help_text="What a derived run was fitted on (split, runs)."
    )
    scores = models.JSONField(
        null=True, blank=True, help_text="Official metrics once the run has finished."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = ModelRunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name

    @property
    def eta_seconds(self) -> float | None:
        """Time left at the recent rate; None when unknown."""
        if self.status != self.Status.RUNNING or not self.rate:
            return None
        return max(0, self.total - self.done) / self.rate

    @property
    def percent(self) -> float:
        return 100.0 * self.done / self.total if self.total else 0.0

    @property
    def worker_made(self) -> bool:
        """Whether a worker computes this run's predictions (a backend of the registry), so
        that a retry can make the missing ones; an imported or derived run's come from a file
        or from other runs."""
        return self.backend != IMPORT_BACKEND and not self.backend.startswith(DERIVED_PREFIX)


class Prediction(models.Model):
    run = models.ForeignKey(ModelRun, on_delete=models.CASCADE, related_name="predictions")
    sample = models.ForeignKey(
        "annotations.Sample", on_delete=models.CASCADE, related_name="predictions"
    )
    score = models.FloatField()
    raw_output = models.TextField(blank=True)
    distribution = models.JSONField(null=True, blank=True, help_text="P(1..5), if known.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run_id", "sample_id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "sample"], name="one_prediction_per_sample"),
            models.CheckConstraint(
                condition=Q(score__gte=-LARGEST_FLOAT, score__lte=LARGEST_FLOAT),
                name="prediction_score_finite",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.run} #{self.sample_id}: {self.score}"


class TrainedModel(models.Model):
    """A model trained by a background job and stored as an artifact under ARTIFACT_ROOT.

    ``path`` is relative to ``settings.ARTIFACT_ROOT``; ``log`` holds the training log as it
    grows. A succeeded row can be named in a run's params (``{"model": <id>}``); no run may
    score a split it was trained on (:func:`predictions.runs.rows.trained_split_names`).
    """

    class Kind(models.TextChoices):
        CROSSENCODER = "crossencoder", "Cross-encoder"
        BIENCODER = "biencoder", "Bi-encoder"

    # The training parameters each kind accepts (besides ``limit``), passed on to its trainer.
    TRAIN_PARAMS = {
        Kind.CROSSENCODER: ("epochs", "seed", "batch_size", "lr", "max_seq_length"),
        Kind.BIENCODER: ("epochs", "seed", "batch_size", "lr", "max_seq_length", "layer"),
    }

    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.CROSSENCODER)
    split = models.ForeignKey(
        "annotations.Split", on_delete=models.PROTECT, related_name="trained_models"
    )
    fit_split = models.CharField(
        max_length=200,
        blank=True,
        help_text='Every split it trains on, in order, ``split`` among them ("train,dev"). '
        "Empty: ``split`` alone.",
    )
    params = models.JSONField(default=dict, blank=True)
    status = models.CharField(
        max_length=10, choices=ModelRun.Status.choices, default=ModelRun.Status.QUEUED
    )
    path = models.CharField(max_length=500, blank=True)
    log = models.TextField(blank=True)
    error = models.TextField(blank=True)
    n_samples = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name

    def directory(self) -> Path:
        return Path(settings.ARTIFACT_ROOT) / self.path
