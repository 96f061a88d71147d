"""Model runs: a predictor backend applied to a set of samples, one prediction each."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ModelRunQuerySet(models.QuerySet):
    def finished(self) -> ModelRunQuerySet:
        return self.filter(status=ModelRun.Status.SUCCEEDED)


class ModelRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    name = models.CharField(max_length=200)
    backend = models.CharField(max_length=100, help_text="Registry name of the backend.")
    params = models.JSONField(default=dict, blank=True)
    split = models.ForeignKey(
        "annotations.Split", on_delete=models.PROTECT, related_name="model_runs"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
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
            models.UniqueConstraint(fields=["run", "sample"], name="one_prediction_per_sample")
        ]

    def __str__(self) -> str:
        return f"{self.run} #{self.sample_id}: {self.score}"
