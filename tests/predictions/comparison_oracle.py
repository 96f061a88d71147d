"""The slow, obviously-correct implementation of the run statistics, kept as the test oracle
of :mod:`dashboards.run_statistics` (the one production implementation, which must give the same
figures): per-item Python loops over the official rule and whole-set scores, setups resampled
for the bootstrap exactly as production draws them.

Every per-item judgment of "inside the accepted band" comes from the official
:func:`annotations.official.is_within_sd` and every whole-set score from
:func:`predictions.evaluation.score_lists`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from annotations.metrics import GroupedRanks, grouped_pearson
from annotations.official import is_within_sd, label_mean
from dashboards.run_statistics import (
    LABELS,
    PairedComparison,
    defined_count,
    paired_result,
    percentile_interval,
    replicates,
)
from predictions.evaluation import Score, score_lists

__all__ = [
    "PairedComparison",
    "defined_count",
    "human_distribution",
    "label_distribution",
    "paired_comparison",
    "round_label",
    "run_intervals",
    "score_lists",
    "split_by_ending",
]


def split_by_ending(
    labels: Sequence[Sequence[float]], preds: Sequence[float], ended: Sequence[bool]
) -> dict[str, Score | None]:
    """Official scores on all items, on open-ended stories and on ended ones (Table 7);
    the two parts' ``correct`` and ``total`` add up to the whole."""
    parts: dict[str, Score | None] = {"all": score_lists(labels, preds)}
    for name, want in (("open", False), ("ended", True)):
        idx = [i for i, flag in enumerate(ended) if bool(flag) is want]
        parts[name] = (
            score_lists([labels[i] for i in idx], [preds[i] for i in idx]) if idx else None
        )
    return parts


def round_label(value: float) -> int:
    """Round half up onto the 1-5 scale (the paper's "rounded" scores; 2.5 -> 3)."""
    return int(min(max(math.floor(value + 0.5), LABELS[0]), LABELS[-1]))


def label_distribution(values: Sequence[float]) -> list[float]:
    """Share of each label 1..5 after rounding (Table 6), as fractions summing to 1."""
    if not values:
        return [0.0] * len(LABELS)
    counts = np.bincount([round_label(v) - 1 for v in values], minlength=len(LABELS))
    return (counts / counts.sum()).tolist()


def human_distribution(labels: Sequence[Sequence[float]]) -> list[float]:
    """Distribution of the rounded human means (the paper's "Human Avg" row)."""
    return label_distribution([label_mean(lab) for lab in labels])


class _ItemResampler:
    """Per-item hits and ranks fixed once; a replicate only reweights items by setup."""

    def __init__(self, labels, preds, setups):
        self.hits = np.array([is_within_sd(p, lab) for p, lab in zip(preds, labels)], float)
        self.setup = np.unique(np.asarray(setups), return_inverse=True)[1].ravel()
        self.n_setups = int(self.setup.max()) + 1 if len(self.setup) else 0
        self.group = np.zeros(len(preds), np.int64)
        self.means = np.array([label_mean(lab) for lab in labels], float)
        self.pred_ranks = GroupedRanks(self.group, np.asarray(preds, float))
        self.mean_ranks = GroupedRanks(self.group, self.means)

    def weights(self, rng) -> np.ndarray:
        draw = rng.integers(0, self.n_setups, self.n_setups)
        return np.bincount(draw, minlength=self.n_setups).astype(float)[self.setup]

    def accuracy(self, w: np.ndarray) -> float:
        return float((w * self.hits).sum() / w.sum())

    def spearman(self, w: np.ndarray, pred_ranks: GroupedRanks | None = None) -> float:
        ranks = (pred_ranks or self.pred_ranks).ranks(w)
        return float(grouped_pearson(self.group, ranks, self.mean_ranks.ranks(w), w, 1)[0])


def run_intervals(
    labels, preds, setups, *, n_boot: int = 1000, seed: int = 0
) -> dict[str, tuple[float, float] | None]:
    """Percentile bootstrap 95% intervals of accuracy and Spearman, resampling setups."""
    res = _ItemResampler(labels, preds, setups)
    rng = np.random.default_rng(seed)
    acc, rho = [], []
    for _ in range(replicates(n_boot, len(preds))):
        w = res.weights(rng)
        acc.append(res.accuracy(w))
        rho.append(res.spearman(w))
    return {"accuracy": percentile_interval(acc), "spearman": percentile_interval(rho)}


def paired_comparison(
    labels, preds_a, preds_b, setups, *, n_boot: int = 1000, seed: int = 0
) -> PairedComparison:
    """Paired bootstrap (setups) on the differences of accuracy and Spearman, and a
    Wilcoxon signed-rank test on the per-item absolute errors against the human mean."""
    a = _ItemResampler(labels, preds_a, setups)
    b_ranks = GroupedRanks(a.group, np.asarray(preds_b, float))
    b_hits = np.array([is_within_sd(p, lab) for p, lab in zip(preds_b, labels)], float)
    rng = np.random.default_rng(seed)
    d_acc, d_rho = [], []
    for _ in range(replicates(n_boot, len(preds_a))):
        w = a.weights(rng)
        d_acc.append(a.accuracy(w) - float((w * b_hits).sum() / w.sum()))
        d_rho.append(a.spearman(w) - a.spearman(w, b_ranks))
    score_a, score_b = score_lists(labels, preds_a), score_lists(labels, preds_b)
    err_a = np.abs(np.asarray(preds_a, float) - a.means)
    err_b = np.abs(np.asarray(preds_b, float) - a.means)
    return paired_result(score_a, score_b, d_acc, d_rho, err_a, err_b)
