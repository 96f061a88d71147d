"""Reads for the annotation pages, each a bounded number of queries."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from .models import Rating, Sample, Setup


@dataclass
class SampleRow:
    sample: Sample
    ratings: list[Rating]
    mean: float | None
    sd: float | None


def setups_in_order() -> QuerySet[Setup]:
    return Setup.objects.select_related("homonym").order_by("id")


def samples_for_setups(setups: list[Setup], include_excluded: bool = False) -> dict[int, list]:
    """``{setup_id: [SampleRow, ...]}`` for a page of setups (3 queries in all)."""
    samples = list(
        Sample.objects.filter(story__setup__in=setups)
        .with_related()
        .with_stats(include_excluded=include_excluded)
        .order_by("split_id", "position")
    )
    ratings = (
        Rating.objects.filter(sample__in=samples)
        .select_related("rater")
        .order_by("sample_id", "position", "id")
    )
    if not include_excluded:
        ratings = ratings.valid()
    by_sample: dict[int, list[Rating]] = {}
    for rating in ratings:
        by_sample.setdefault(rating.sample_id, []).append(rating)
    rows: dict[int, list[SampleRow]] = {}
    for sample in samples:
        rows.setdefault(sample.story.setup_id, []).append(
            SampleRow(sample, by_sample.get(sample.id, []), sample.mean, sample.sd)
        )
    return rows
