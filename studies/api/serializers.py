"""Read-only study representation: settings and counts, never participants' Prolific ids."""

from __future__ import annotations

from rest_framework import serializers

from studies.models import Study


class StudySerializer(serializers.ModelSerializer):
    n_samples = serializers.IntegerField(read_only=True, help_text="Samples in the study.")
    n_participants = serializers.IntegerField(read_only=True, help_text="Participants so far.")

    class Meta:
        model = Study
        fields = [
            "id", "slug", "title", "status", "task_kind", "activity", "ratings_per_sample",
            "adaptive", "adaptive_rule", "max_ratings_per_sample", "target_width", "rating_budget",
            "samples_per_participant",
            "attention_checks_per_batch", "questions_per_participant", "time_limit_minutes",
            "guidelines", "contact",
            "n_samples", "n_participants", "created_at",
        ]  # fmt: skip
        read_only_fields = fields
