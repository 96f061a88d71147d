"""The relatedness and sense-choice page: per dataset split, the human figures and the
model runs scored the way the kind is scored.

Relatedness (RAW-C): leave-one-annotator-out agreement next to the paper's 0.79,
Krippendorff's alpha (interval) and mean SD; each run's Spearman against mean relatedness
next to the paper's BERT (-0.58) and ELMo (-0.53), which are also recomputed from the
distances the dataset ships; and Figure 4's residual view (mean residual of a linear fit of
relatedness on the distances, by same sense x ambiguity type). Sense choice: each run's
accuracy and macro-F1 per set, the participants' accuracy against gold, and the sense map
(the kNN probe's 2-D PCA of the target's vectors, coloured by gold sense, one panel per word
and set).
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from dataclasses import dataclass, field, replace

from annotations.metrics import RatingTable, krippendorff_alpha, mean_sd
from annotations.metrics_relatedness import (
    RAWC_REPORTED_AGREEMENT,
    LeaveOneOut,
    leave_one_annotator_out,
)
from annotations.models import (
    RatingQuerySet,
    Sample,
    SenseCandidate,
    SentencePair,
    Split,
    TaskKind,
)
from annotations.official import spearman
from annotations.scope import RatingScope
from predictions.evaluation_kinds import RAWC_REPORTED, residuals_by_group
from predictions.models import ModelRun, Prediction


@dataclass
class Reference:
    name: str
    reported: float
    recomputed: float | None


@dataclass
class RelatednessView:
    split: Split
    n_pairs: int
    n_words: int
    n_judgments: int
    loao: LeaveOneOut | None
    alpha: float | None
    mean_sd: float | None
    references: list[Reference]
    runs: list[ModelRun]
    residuals: dict[str, dict[Hashable, dict]] = field(default_factory=dict)
    reported_agreement: float = RAWC_REPORTED_AGREEMENT


def _runs(split: Split) -> list[ModelRun]:
    return list(ModelRun.objects.finished().filter(split=split).order_by("id"))


def _group(pair: SentencePair) -> str:
    return f"{'same' if pair.same_sense else 'different'} sense, {pair.ambiguity_type}"


def _reference_spearman(pairs: list[SentencePair], y: list[float], field: str) -> float | None:
    """Spearman of a shipped distance against mean relatedness, over the pairs that have
    that distance (a missing one is no distance of 0)."""
    known = [(d, m) for p, m in zip(pairs, y) if (d := getattr(p, field)) is not None]
    return spearman([d for d, _ in known], [m for _, m in known]) if known else None


def relatedness_view(split: Split, scoped: RatingQuerySet) -> RelatednessView:
    """``scoped``: the split's ratings in the page's scope."""
    ratings = list(scoped.values_list("sample_id", "rater_id", "score"))
    table = RatingTable.from_rows(ratings)
    scores: dict[int, list[int]] = {}
    for sample_id, _, score in ratings:
        scores.setdefault(sample_id, []).append(score)
    means = {pk: sum(v) / len(v) for pk, v in scores.items()}
    pairs = [
        p
        for p in SentencePair.objects.filter(sample__split=split)
        if means.get(p.sample_id) is not None
    ]
    y = [means[p.sample_id] for p in pairs]
    references = [
        Reference(name, value, _reference_spearman(pairs, y, f"distance_{name.lower()}"))
        for name, value in RAWC_REPORTED.items()
    ]
    runs = _runs(split)
    residuals: dict[str, dict[Hashable, dict]] = {}
    groups = [_group(p) for p in pairs]
    if pairs and all(p.distance_bert is not None and p.distance_elmo is not None for p in pairs):
        x = [[float(p.distance_elmo or 0), float(p.distance_bert or 0)] for p in pairs]
        residuals["paper: relatedness ~ ELMo + BERT"] = residuals_by_group(y, x, groups)
    for run in runs:
        preds = dict(Prediction.objects.filter(run=run).values_list("sample_id", "score"))
        keep = [i for i, p in enumerate(pairs) if p.sample_id in preds]
        if len(keep) > 2:
            residuals[f"{run.name}: relatedness ~ distance"] = residuals_by_group(
                [y[i] for i in keep],
                [[preds[pairs[i].sample_id]] for i in keep],
                [groups[i] for i in keep],
            )
    return RelatednessView(
        split=split,
        n_pairs=len(means),
        n_words=Sample.objects.filter(split=split)
        .values("story__setup__homonym")
        .distinct()
        .count(),
        n_judgments=len(ratings),
        loao=leave_one_annotator_out((r, s, v) for s, r, v in ratings),
        alpha=krippendorff_alpha(table) if ratings else None,
        mean_sd=mean_sd(table) if ratings else None,
        references=references,
        runs=runs,
        residuals=residuals,
    )


@dataclass
class Panel:
    word: str
    item_set: str
    points: list[dict]


@dataclass
class SenseChoiceView:
    split: Split
    n_items: int
    sets: dict[str, int]
    runs: list[ModelRun]
    crowd: dict | None
    panels: list[Panel]
    senses: list[str]


PANEL = 120  # px, the side of one sense-map panel
MARGIN = 8


def _crowd(scoped: RatingQuerySet, gold: dict[int, int], sets: dict[int, str]) -> dict | None:
    """The participants' accuracy against gold, overall and per set (ratings in scope)."""
    rows = scoped.values_list("sample_id", "score")
    hits: dict[str, list[int]] = {}
    for sample_id, score in rows:
        if sample_id in gold:
            hits.setdefault(sets[sample_id], []).append(int(score == gold[sample_id]))
    if not hits:
        return None
    every = [h for values in hits.values() for h in values]
    per_set = {name: {"accuracy": sum(v) / len(v), "n": len(v)} for name, v in sorted(hits.items())}
    return {"accuracy": sum(every) / len(every), "n": len(every), "per_set": per_set}


def _panels(
    run: ModelRun | None,
    gold_key: dict[int, str],
    words: dict[int, str],
    sets: dict[int, str],
    gold: dict[int, int],
) -> list[Panel]:
    """The kNN probe's per-word PCA points, scaled into one square per word and set."""
    if run is None:
        return []
    points: dict[tuple[str, str], list[tuple[float, float, int]]] = {}
    for sample_id, raw in Prediction.objects.filter(run=run).values_list("sample_id", "raw_output"):
        try:
            xy = json.loads(raw).get("xy")
        except (json.JSONDecodeError, AttributeError):
            continue
        if xy and len(xy) == 2 and sample_id in gold_key:
            points.setdefault((words[sample_id], sets[sample_id]), []).append((*xy, sample_id))
    by_word: dict[str, list[tuple[float, float, int]]] = {}
    for (word, _), pts in points.items():
        by_word.setdefault(word, []).extend(pts)
    panels = []
    for (word, item_set), pts in sorted(points.items()):
        xs, ys = [p[0] for p in by_word[word]], [p[1] for p in by_word[word]]
        span_x, span_y = (max(xs) - min(xs)) or 1.0, (max(ys) - min(ys)) or 1.0
        scale = lambda v, lo, span: MARGIN + (v - lo) / span * (PANEL - 2 * MARGIN)  # noqa: E731
        panels.append(
            Panel(
                word,
                item_set,
                [
                    {
                        "x": round(scale(x, min(xs), span_x), 1),
                        "y": round(PANEL - scale(y, min(ys), span_y), 1),
                        "cls": gold[sid],
                        "label": gold_key[sid],
                    }
                    for x, y, sid in pts
                ],
            )
        )
    return panels


def sense_choice_view(split: Split, scoped: RatingQuerySet) -> SenseChoiceView:
    samples = list(
        Sample.objects.filter(split=split).values_list(
            "pk", "item_set", "story__setup__homonym__form"
        )
    )
    sets = {pk: s for pk, s, _ in samples}
    words = {pk: w for pk, _, w in samples}
    gold_rows = SenseCandidate.objects.filter(sample__split=split, is_gold=True).values_list(
        "sample_id", "index", "key", "gloss"
    )
    gold = {sid: index for sid, index, _, _ in gold_rows}
    gold_key = {sid: key or gloss[:30] for sid, _, key, gloss in gold_rows}
    runs = _runs(split)
    probe = next((r for r in reversed(runs) if r.backend == "knn_probe"), None)
    counts: dict[str, int] = {}
    for name in sets.values():
        counts[name] = counts.get(name, 0) + 1
    return SenseChoiceView(
        split=split,
        n_items=len(samples),
        sets=dict(sorted(counts.items())),
        runs=runs,
        crowd=_crowd(scoped, gold, sets),
        panels=_panels(probe, gold_key, words, sets, gold),
        senses=sorted(set(gold_key.values())),
    )


def _in_scope(scope: RatingScope, split: Split) -> RatingQuerySet:
    return replace(scope, kind=split.dataset.task_kind, splits=(split,)).ratings()


def kind_views(scope: RatingScope) -> tuple[list[RelatednessView], list[SenseChoiceView]]:
    """Every relatedness and sense-choice split (the scope's, when it names some), with the
    ratings of the scope (a study's own, valid ones unless the flags say otherwise)."""
    splits = Split.objects.select_related("dataset").order_by("dataset__name", "name")
    if scope.splits:
        splits = splits.filter(pk__in=[s.pk for s in scope.splits])
    related = [
        relatedness_view(s, _in_scope(scope, s))
        for s in splits.filter(dataset__task_kind=TaskKind.RELATEDNESS)
    ]
    chosen = [
        sense_choice_view(s, _in_scope(scope, s))
        for s in splits.filter(dataset__task_kind=TaskKind.SENSE_CHOICE)
    ]
    return related, chosen


def scope_text(scope: RatingScope) -> str:
    """The page's scope in words (each split is read with its own kind)."""
    return replace(scope, kind=None).describe(kind_label="relatedness and sense choice")
