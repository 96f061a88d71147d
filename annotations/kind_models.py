"""The labels of relatedness (``SentencePair``) and sense-choice (``SenseCandidate``)
samples; part of ``annotations.models`` (which imports them), kept apart to keep that module
short."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from .kinds import SENSE_CANDIDATES_MAX


class SentencePair(models.Model):
    """The labels of a relatedness sample (RAW-C). The two sentences are the sample's
    setup: ``precontext`` holds the first, ``sentence`` the second; the setup's homonym is
    the word judged in both."""

    class Ambiguity(models.TextChoices):
        HOMONYMY = "Homonymy", "Homonymy"
        POLYSEMY = "Polysemy", "Polysemy"

    sample = models.OneToOneField(
        "annotations.Sample", on_delete=models.CASCADE, related_name="pair"
    )
    target = models.CharField(
        max_length=100, help_text="The word as it appears in both sentences (e.g. bailed)."
    )
    same_sense = models.BooleanField()
    ambiguity_type = models.CharField(max_length=10, choices=Ambiguity.choices)
    word_class = models.CharField(max_length=4, blank=True, help_text="N or V.")
    version = models.CharField(max_length=32, help_text="RAW-C's sense versions, M1_a_M2_b.")
    dominance = models.FloatField(
        null=True, blank=True, help_text="Dominance of sentence 2's sense (RAW-C norms)."
    )
    distance_bert = models.FloatField(null=True, blank=True)
    distance_elmo = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["sample_id"]

    def __str__(self) -> str:
        return f"{self.sample} ({self.version})"


class SenseCandidate(models.Model):
    """One candidate sense of a sense-choice sample, at its index in the source; exactly
    one candidate per sample is gold. A rating's score is the chosen candidate's index."""

    sample = models.ForeignKey(
        "annotations.Sample", on_delete=models.CASCADE, related_name="candidates"
    )
    index = models.PositiveSmallIntegerField()
    key = models.CharField(max_length=100, blank=True, help_text="e.g. bank_river.")
    gloss = models.TextField()
    synonyms = models.JSONField(default=list, blank=True)
    examples = models.JSONField(default=list, blank=True)
    is_gold = models.BooleanField(default=False)

    class Meta:
        ordering = ["sample_id", "index"]
        constraints = [
            models.UniqueConstraint(fields=["sample", "index"], name="one_candidate_per_index"),
            models.UniqueConstraint(
                fields=["sample"], condition=Q(is_gold=True), name="one_gold_candidate"
            ),
            models.CheckConstraint(
                condition=Q(index__lt=SENSE_CANDIDATES_MAX), name="candidate_index_in_range"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.sample} [{self.index}] {self.gloss[:40]}"
