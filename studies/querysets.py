"""Chainable reads of the studies' models that the models module attaches as managers."""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class ParticipantQuerySet(models.QuerySet):
    def search(self, text: str) -> ParticipantQuerySet:
        """Participants whose PID (or PID before a reset), pseudonym or client contains
        ``text`` (case-insensitive); all of them for an empty ``text``."""
        text = text.strip()
        if not text:
            return self
        return self.filter(
            Q(prolific_pid__icontains=text)
            | Q(pid_before_reset__icontains=text)
            | Q(rater__pseudonym__icontains=text)
            | Q(client__icontains=text)
        )
