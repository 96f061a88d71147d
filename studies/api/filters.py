"""Documented filters for the study endpoints."""

from __future__ import annotations

import django_filters as filters

from studies.models import Study


class StudyFilter(filters.FilterSet):
    status = filters.ChoiceFilter(
        choices=Study.Status.choices, help_text="draft, open, paused or closed."
    )

    class Meta:
        model = Study
        fields = ["status"]
