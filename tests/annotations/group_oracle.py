"""An independent computation of the group-level agreement figures (numpy and scipy only,
written from the papers, calling nothing of the app): the oracle of the group tests and of
the list-design replay of the AmbiStory dev ratings.

Input: ratings as ``(group, rater, sample, score)``. Each annotator (a rater within a group)
is scored against the other annotators who rated the same sample (any group): a rating is
accurate when ``|rating - mean(others)| < max(sd(others), 1)`` (sample SD, 0 for a single
other: the SemEval rule), and the annotator's Spearman is scipy's between their ratings and
the others' means. Upper bound: the mean over groups (at least 5 samples and 2 annotators)
of the group's best annotator, per metric. Average annotator and leave-one-out: the mean
over annotators weighted by the samples each rated that have another rating.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
from scipy import stats


def _unit_scores(ratings) -> dict:
    """``{(group, rater): (accuracy, spearman, samples with others)}``."""
    by_sample = defaultdict(list)
    for _, rater, sample, score in ratings:
        by_sample[sample].append((rater, score))
    own, means, hits = defaultdict(list), defaultdict(list), defaultdict(list)
    for group, rater, sample, score in ratings:
        others = np.array([v for r, v in by_sample[sample] if r != rater], float)
        if not len(others):
            continue
        sd = others.std(ddof=1) if len(others) > 1 else 0.0
        own[(group, rater)].append(score)
        means[(group, rater)].append(others.mean())
        hits[(group, rater)].append(abs(score - others.mean()) < max(sd, 1.0))
    out = {}
    for key, x in own.items():
        y = means[key]
        rho = math.nan
        if len(x) >= 3 and np.ptp(x) > 0 and np.ptp(y) > 0:
            rho = float(stats.spearmanr(x, y).statistic)
        out[key] = (float(np.mean(hits[key])), rho, len(x))
    return out


def group_oracle(ratings) -> dict:
    """``{"groups": {group: {...}}, "best_accuracy", "best_spearman", "average_accuracy",
    "average_spearman", "loo_spearman"}`` from ``(group, rater, sample, score)`` rows."""
    units = _unit_scores(ratings)
    samples = defaultdict(set)
    for group, _, sample, _ in ratings:
        samples[group].add(sample)
    groups = {}
    for group in sorted(samples):
        mine = [v for (g, _), v in units.items() if g == group]
        accs = [a for a, _, _ in mine]
        rhos = [r for _, r, _ in mine if not math.isnan(r)]
        groups[group] = {
            "annotators": len(mine),
            "samples": len(samples[group]),
            "usable": len(samples[group]) >= 5 and len(mine) >= 2,
            "best_accuracy": max(accs) if accs else math.nan,
            "best_spearman": max(rhos) if rhos else math.nan,
            "average_accuracy": _weighted([(a, n) for a, _, n in mine]),
            "average_spearman": _weighted([(r, n) for _, r, n in mine]),
        }
    usable = [g for g in groups.values() if g["usable"]]
    everyone = list(units.values())
    return {
        "groups": groups,
        "best_accuracy": float(np.nanmean([g["best_accuracy"] for g in usable])),
        "best_spearman": float(np.nanmean([g["best_spearman"] for g in usable])),
        "average_accuracy": _weighted([(a, n) for a, _, n in everyone]),
        "average_spearman": _weighted([(r, n) for _, r, n in everyone]),
        "loo_spearman": _weighted([(r, n) for _, r, n in everyone]),
    }


def _weighted(pairs) -> float:
    pairs = [(v, n) for v, n in pairs if not math.isnan(v) and n > 0]
    if not pairs:
        return math.nan
    return sum(v * n for v, n in pairs) / sum(n for _, n in pairs)
