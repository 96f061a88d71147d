"""The "Paper analyses" page: the RAW-C paper's analyses (annotations.analyses_rawc) run on
each relatedness split's pairs and the scope's ratings, each next to the paper's figure.

Mean relatedness is recomputed from the ratings in scope (as the relatedness page does), so
a study's own judgments give its own figures. The results are cached by the exact input
(pairs and ratings), since the leave-one-out classifiers and the mixed models take seconds.
"""

from __future__ import annotations

import hashlib
import pickle
import statistics
from dataclasses import dataclass

from django.core.cache import cache

from annotations.analyses_ambistory import (
    SdComparison,
    StorySample,
    dataset_counts,
    sd_comparison,
    section_lengths,
)
from annotations.analyses_rawc import (
    Classifier,
    DominanceSummary,
    GroupSummary,
    JudgmentFigure,
    PairRow,
    Regression,
    dominance_summary,
    group_summaries,
    judgment_summary,
    r_squared_comparison,
    sense_classifiers,
)
from annotations.analyses_rawc_mixed import Comparison, distance_comparisons
from annotations.models import RatingQuerySet, SentencePair, Split, TaskKind
from annotations.scope import RatingScope

from .kinds import _in_scope

CACHE_SECONDS = 24 * 3600
MIN_PAIRS = 8


@dataclass
class RawcAnalyses:
    split: Split
    n_pairs: int
    n_judgments: int
    regressions: list[Regression]
    classifiers: list[Classifier]
    figures: dict[str, list[GroupSummary]]
    judgments: list[JudgmentFigure]
    dominance: list[DominanceSummary]
    distance_models: list[Comparison]
    problem: str = ""


def _rows(split: Split, scoped: RatingQuerySet) -> tuple[list[PairRow], list[tuple]]:
    ratings = list(scoped.values_list("sample_id", "score"))
    scores: dict[int, list[float]] = {}
    for sample_id, score in ratings:
        scores.setdefault(sample_id, []).append(float(score))
    pairs = SentencePair.objects.filter(sample__split=split).values_list(
        "sample_id",
        "sample__story__setup__homonym__form",
        "same_sense",
        "ambiguity_type",
        "distance_bert",
        "distance_elmo",
        "word_class",
        "dominance",
    )
    rows, labels = [], {}
    for sample_id, word, same, ambiguity, bert, elmo, word_class, dominance in pairs:
        labels[sample_id] = (same, ambiguity)
        if sample_id in scores and bert is not None and elmo is not None:
            mean = statistics.fmean(scores[sample_id])
            rows.append(PairRow(word, mean, same, ambiguity, bert, elmo, word_class, dominance))
    judgments = [(*labels[s], float(v)) for s, v in ratings if s in labels]
    return rows, judgments


def _compute(split: Split, rows: list[PairRow], judgments: list[tuple]) -> RawcAnalyses:
    ambiguity_types = {r.ambiguity for r in rows}
    if len(rows) < MIN_PAIRS or len({r.same_sense for r in rows}) < 2 or len(ambiguity_types) < 2:
        return RawcAnalyses(split, len(rows), len(judgments), [], [], {}, [], [], [], (
            f"{len(rows)} rated pairs with distances: the analyses need at least {MIN_PAIRS}, "
            "with same- and different-sense pairs of both ambiguity types."
        ))  # fmt: skip
    return RawcAnalyses(
        split=split,
        n_pairs=len(rows),
        n_judgments=len(judgments),
        regressions=r_squared_comparison(rows),
        classifiers=sense_classifiers(rows),
        figures=group_summaries(rows),
        judgments=judgment_summary(judgments),
        dominance=dominance_summary(rows),
        distance_models=distance_comparisons(rows),
    )


def rawc_analyses(split: Split, scoped: RatingQuerySet) -> RawcAnalyses:
    rows, judgments = _rows(split, scoped)
    digest = hashlib.sha256(pickle.dumps((rows, judgments))).hexdigest()
    key = f"paper-analyses:rawc:{split.pk}:{digest}"
    found = cache.get(key)
    if found is None:
        found = _compute(split, rows, judgments)
        cache.set(key, found, CACHE_SECONDS)
    return found


def paper_analyses(scope: RatingScope) -> list[RawcAnalyses]:
    """Every relatedness split (the scope's, when it names some) with the scope's ratings."""
    splits = Split.objects.select_related("dataset").filter(dataset__task_kind=TaskKind.RELATEDNESS)
    if scope.splits:
        splits = splits.filter(pk__in=[s.pk for s in scope.splits])
    return [rawc_analyses(s, _in_scope(scope, s)) for s in splits.order_by("dataset__name", "name")]


@dataclass
class AmbistoryAnalyses:
    split: Split
    lengths: dict[str, float]
    counts: dict
    sds: SdComparison | None
    problem: str = ""


def ambistory_analyses(split: Split, scoped: RatingQuerySet) -> AmbistoryAnalyses:
    """Table 2 and section 4.1 on the split's samples; the SD comparison on the samples
    with two or more ratings in scope (each SD recomputed from those ratings)."""
    scores: dict[int, list[float]] = {}
    for sample_id, score in scoped.values_list("sample_id", "score"):
        scores.setdefault(sample_id, []).append(float(score))
    found = split.samples.values_list(
        "pk",
        "story__setup__homonym__form",
        "sense__gloss",
        "story__setup__precontext",
        "story__setup__sentence",
        "story__ending",
    )
    samples, rated = [], []
    for pk, form, gloss, precontext, sentence, ending in found:
        v = scores.get(pk, [])
        sd = statistics.stdev(v) if len(v) > 1 else float("nan")
        sample = StorySample(form, gloss or "", precontext, sentence, ending, sd)
        samples.append(sample)
        if len(v) > 1:
            rated.append(sample)
    if not samples:
        return AmbistoryAnalyses(split, {}, {}, None, "no samples")
    try:
        sds = sd_comparison(rated)
        problem = ""
    except ValueError as error:
        sds, problem = None, str(error)
    return AmbistoryAnalyses(split, section_lengths(samples), dataset_counts(samples), sds, problem)


def ambistory_splits(scope: RatingScope) -> list[AmbistoryAnalyses]:
    splits = Split.objects.select_related("dataset").filter(
        dataset__task_kind=TaskKind.PLAUSIBILITY
    )
    if scope.splits:
        splits = splits.filter(pk__in=[s.pk for s in scope.splits])
    return [
        ambistory_analyses(s, _in_scope(scope, s)) for s in splits.order_by("dataset__name", "name")
    ]
