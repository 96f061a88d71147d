"""The "Paper analyses" page: the RAW-C paper's analyses (annotations.analyses_rawc) run on
each relatedness split's pairs and the scope's ratings, each next to the paper's figure.

Mean relatedness is recomputed from the ratings in scope (as the relatedness page does), so
a study's own judgments give its own figures. The results are cached by the exact input
(pairs and ratings), since the leave-one-out classifiers and the mixed models take seconds.
The judgment-level mixed models (section 5.2) take longer still (about 40 s on the full
import on a busy 2-core machine), so they are fitted when the page is asked for them
(``?judgment_models=1``) and shown from the cache afterwards.
"""

from __future__ import annotations

import functools
import hashlib
import pickle
import statistics
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from django.conf import settings
from django.core.cache import cache

from annotations.analyses_ambistory import (
    SdComparison,
    StorySample,
    dataset_counts,
    sd_comparison,
    section_lengths,
)
from annotations.analyses_rawc import (
    FIGURE2_EDGES,
    FIGURE3_EDGES,
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
from annotations.analyses_rawc_mixed import (
    Comparison,
    JudgmentRow,
    distance_comparisons,
    human_comparisons,
)
from annotations.models import RatingQuerySet, SentencePair, Split, TaskKind
from annotations.scope import RatingScope
from annotations.sense_frequency import FrequencyCorrelation, frequency_correlation, read_table

from .kinds import _in_scope
from .paper_figures import Figure, histogram_figure

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
    charts: list[Figure] = field(default_factory=list)
    judgment_models: list[Comparison] | None = None  # None: not fitted yet
    judgment_models_problem: str = ""
    judgment_key: str = ""  # the judgment-level models' cache entry


def _charts(figures: dict[str, list[GroupSummary]]) -> list[Figure]:
    """Figures 2 and 3 as histograms, one panel per group (Figure 2 once per model)."""

    def groups(summaries, prefix=""):
        return [
            (g.group.removeprefix(prefix), g.histogram, g.median)
            for g in summaries
            if g.group.startswith(prefix)
        ]

    return [
        histogram_figure(
            "figure3", "Figure 3: mean relatedness per pair", "mean relatedness (0-4)",
            groups(figures["figure3"]), FIGURE3_EDGES, "pairs",
        ),
        *(
            histogram_figure(
                f"figure2-{model.lower()}", f"Figure 2: {model}'s cosine distance per pair",
                "cosine distance", groups(figures["figure2"], f"{model}: "), FIGURE2_EDGES,
                "pairs",
            )
            for model in ("BERT", "ELMo")
        ),
    ]  # fmt: skip


def _rows(
    split: Split, scoped: RatingQuerySet
) -> tuple[list[PairRow], list[tuple], list[JudgmentRow]]:
    ratings = list(scoped.values_list("sample_id", "rater_id", "score"))
    scores: dict[int, list[float]] = {}
    for sample_id, _, score in ratings:
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
    rows, labels, by_sample = [], {}, {}
    for sample_id, word, same, ambiguity, bert, elmo, word_class, dominance in pairs:
        labels[sample_id] = (same, ambiguity)
        if sample_id in scores and bert is not None and elmo is not None:
            mean = statistics.fmean(scores[sample_id])
            row = PairRow(word, mean, same, ambiguity, bert, elmo, word_class, dominance)
            rows.append(row)
            by_sample[sample_id] = row
    judgments = [(*labels[s], float(v)) for s, _, v in ratings if s in labels]
    single = [
        JudgmentRow(str(rater), p.word, float(v), p.same_sense, p.ambiguity, p.distance_bert,
                    p.distance_elmo, p.word_class)
        for s, rater, v in ratings
        if (p := by_sample.get(s)) is not None
    ]  # fmt: skip
    return rows, judgments, single


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
        charts=_charts(group_summaries(rows)),
    )


def rawc_analyses(split: Split, scoped: RatingQuerySet) -> RawcAnalyses:
    rows, judgments, single = _rows(split, scoped)
    digest = hashlib.sha256(pickle.dumps((rows, judgments, single))).hexdigest()
    key = f"paper-analyses:rawc:{split.pk}:{digest}"
    found = cache.get(key)
    if found is None:
        found = _compute(split, rows, judgments)
        cache.set(key, found, CACHE_SECONDS)
    return replace(found, judgment_key=f"{key}:judgments")


def paper_analyses(scope: RatingScope) -> list[RawcAnalyses]:
    """Every relatedness split (the scope's, when it names some) with the scope's ratings."""
    splits = Split.objects.select_related("dataset").filter(dataset__task_kind=TaskKind.RELATEDNESS)
    if scope.splits:
        splits = splits.filter(pk__in=[s.pk for s in scope.splits])
    return [rawc_analyses(s, _in_scope(scope, s)) for s in splits.order_by("dataset__name", "name")]


def _fit_judgments(single: list[JudgmentRow]) -> tuple[list[Comparison], str]:
    try:
        return human_comparisons(single), ""
    except (ValueError, np.linalg.LinAlgError) as error:
        return [], f"the judgment-level models could not be fitted: {error}"


def with_judgment_models(
    found: list[RawcAnalyses], scope: RatingScope, *, fit_now: bool
) -> list[RawcAnalyses]:
    """Each split's judgment-level models from their own cache entry (keyed by the exact
    judgments), or fitted now when asked; kept outside the page's cache, so a plain visit
    after a fit shows them."""
    out = []
    for a in found:
        models = cache.get(a.judgment_key) if a.judgment_key and not a.problem else None
        if models is None and fit_now and not a.problem:
            models = _fit_judgments(_rows(a.split, _in_scope(scope, a.split))[2])
            cache.set(a.judgment_key, models, CACHE_SECONDS)
        if models is not None:
            a = replace(a, judgment_models=models[0], judgment_models_problem=models[1])
        out.append(a)
    return out


@dataclass
class AmbistoryAnalyses:
    split: Split
    lengths: dict[str, float]
    counts: dict
    sds: SdComparison | None
    problem: str = ""
    sd_chart: Figure | None = None
    frequency: FrequencyCorrelation | None = None
    frequency_problem: str = ""


FREQUENCIES = "data/wordnet/ambistory-sense-frequencies.tsv"


@functools.cache
def _sense_counts() -> dict[tuple[str, str], int]:
    """The shipped SemCor frequencies (data/wordnet/README.md), read once per process."""
    return read_table(Path(settings.BASE_DIR) / FREQUENCIES)


def _frequency(rated: list[tuple[str, str, float]]) -> tuple[FrequencyCorrelation | None, str]:
    try:
        return frequency_correlation(rated, _sense_counts()), ""
    except (ValueError, OSError) as error:
        return None, str(error)


def sd_chart(sds: SdComparison) -> Figure:
    """Section 5.3.2's comparison as two histograms of the per-sample SDs."""
    return histogram_figure(
        "ambistory-sd-figure", "SD of each sample's ratings, open-ended against ended stories",
        "rating SD", [("open-ended", sds.histogram_open, sds.median_open),
                      ("ended", sds.histogram_ended, sds.median_ended)],
        sds.edges, "samples",
    )  # fmt: skip


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
    samples, rated, means = [], [], []
    for pk, form, gloss, precontext, sentence, ending in found:
        v = scores.get(pk, [])
        if v:
            means.append((form, gloss or "", statistics.fmean(v)))
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
    frequency, frequency_problem = _frequency(means)
    return AmbistoryAnalyses(
        split, section_lengths(samples), dataset_counts(samples), sds, problem,
        sd_chart(sds) if sds else None, frequency, frequency_problem,
    )  # fmt: skip


def ambistory_splits(scope: RatingScope) -> list[AmbistoryAnalyses]:
    splits = Split.objects.select_related("dataset").filter(
        dataset__task_kind=TaskKind.PLAUSIBILITY
    )
    if scope.splits:
        splits = splits.filter(pk__in=[s.pk for s in scope.splits])
    return [
        ambistory_analyses(s, _in_scope(scope, s)) for s in splits.order_by("dataset__name", "name")
    ]
