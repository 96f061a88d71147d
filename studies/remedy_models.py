"""The record of a researcher's remedies against abuse (``studies.remedies``); part of
``studies.models`` (which imports it), kept apart to keep that module short."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Remedy(models.Model):
    """A researcher's remedy against abuse (``studies.remedies``): what was done to which
    participants, by whom and why. Kept for the record; never changed."""

    class Action(models.TextChoices):
        RELEASE = "release", "Release holds"
        EXCLUDE = "exclude", "Exclude and release"
        PID_RESET = "pid_reset", "PID reset"

    study = models.ForeignKey("studies.Study", on_delete=models.CASCADE, related_name="remedies")
    action = models.CharField(max_length=20, choices=Action.choices)
    client = models.CharField(max_length=64, blank=True)
    started_from = models.DateTimeField(null=True, blank=True)
    started_to = models.DateTimeField(null=True, blank=True)
    pid = models.CharField(max_length=64, blank=True)
    count = models.PositiveIntegerField(default=0)
    reason = models.TextField()
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-id"]
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="remedy_has_a_reason"),
        ]

    def __str__(self) -> str:
        return f"{self.get_action_display()} in {self.study}: {self.count}"
