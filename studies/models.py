"""Crowd studies: Prolific participants rating AmbiStory samples."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Study(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        OPEN = "open", "Open"
        PAUSED = "paused", "Paused"
        CLOSED = "closed", "Closed"

    slug = models.SlugField(max_length=64, unique=True)
    title = models.CharField(max_length=200)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    samples = models.ManyToManyField(
        "annotations.Sample", related_name="studies", blank=True, through="StudySample"
    )
    ratings_per_sample = models.PositiveSmallIntegerField(default=5)
    samples_per_participant = models.PositiveSmallIntegerField(default=30)
    attention_checks_per_batch = models.PositiveSmallIntegerField(default=1)
    guidelines = models.TextField(blank=True)
    completion_code = models.CharField(max_length=64)
    screenout_code = models.CharField(max_length=64)
    time_limit_minutes = models.PositiveIntegerField(default=60)
    prolific_completion_url = models.URLField(
        default="https://app.prolific.com/submissions/complete?cc={code}",
        help_text="{code} is replaced by the completion or screen-out code.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "studies"

    def __str__(self) -> str:
        return self.title


class StudySample(models.Model):
    study = models.ForeignKey(Study, on_delete=models.CASCADE)
    sample = models.ForeignKey("annotations.Sample", on_delete=models.PROTECT)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "sample"], name="unique_study_sample")
        ]

    def __str__(self) -> str:
        return f"{self.study} / {self.sample}"


class Participant(models.Model):
    """One Prolific participant in one study; ratings go through ``rater``."""

    class Status(models.TextChoices):
        STARTED = "started", "Started"
        QUALIFIED = "qualified", "Qualified"
        SCREENED_OUT = "screened_out", "Screened out"
        FINISHED = "finished", "Finished"
        TIMED_OUT = "timed_out", "Timed out"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="participants")
    rater = models.OneToOneField(
        "annotations.Rater", on_delete=models.PROTECT, related_name="participant"
    )
    prolific_pid = models.CharField(max_length=64)
    prolific_study_id = models.CharField(max_length=64, blank=True)
    prolific_session_id = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.STARTED)
    started_at = models.DateTimeField(auto_now_add=True)
    qualified_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]
        constraints = [
            models.UniqueConstraint(fields=["study", "prolific_pid"], name="one_pid_per_study")
        ]

    def __str__(self) -> str:
        return f"{self.rater} in {self.study}"
