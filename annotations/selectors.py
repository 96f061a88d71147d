"""Reads for the annotation pages, each a bounded number of queries."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import QuerySet

from .models import Rating, Sample, Setup, decided_ratings
from .official import label_sd


@dataclass
class SampleRow:
    sample: Sample
    ratings: list[Rating]
    mean: float | None
    sd: float | None


def attach_official_sd(samples: Iterable[Sample]) -> None:
    """Set each sample's ``sd`` to the official SD (:func:`annotations.official.label_sd`,
    ``statistics.stdev``) of its valid, decided ratings, None below two (one query).

    ``SampleQuerySet.with_stats`` annotates ``sd`` with PostgreSQL's ``stddev_samp``, which
    differs in the last bit for ratings as plain as [2, 4] (1.414213562373095 instead of
    1.4142135623730951) and so flips "within one SD" for a prediction on the boundary: it is
    for display only, and a figure anyone may score with (the API's) comes from here."""
    samples = list(samples)
    scores: dict[int, list[int]] = {s.pk: [] for s in samples}
    ratings = Rating.objects.valid().filter(decided_ratings(), sample__in=list(scores))
    for sample_id, score in ratings.order_by().values_list("sample_id", "score"):
        scores[sample_id].append(score)
    for sample in samples:
        found = scores[sample.pk]
        sample.sd = label_sd(found) if len(found) > 1 else None  # type: ignore[attr-defined]


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
