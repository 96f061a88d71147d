"""Model runs next to humans and next to each other, as a pure module (no Django).

Every per-item judgment of "inside the accepted band" comes from the official
:func:`annotations.official.is_within_sd` and every whole-set score from
:func:`predictions.evaluation.score_lists`; this module only slices, resamples and compares.
Bootstrap replicates resample *setups* (the six samples of a story setup move together).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from annotations.metrics import GroupedRanks, grouped_pearson
from annotations.official import is_within_sd, label_mean

from .evaluation import Score, score_lists

LABELS = (1, 2, 3, 4, 5)
BOOTSTRAP_ITEM_BUDGET = 20_000_000  # item-replicates; large runs get fewer replicates
MIN_BOOTSTRAP = 100


def replicates(n_boot: int, n_items: int) -> int:
    """Replicates to draw: ``n_boot`` unless that exceeds the budget on large runs."""
    if n_items * n_boot <= BOOTSTRAP_ITEM_BUDGET:
        return n_boot
    return max(MIN_BOOTSTRAP, BOOTSTRAP_ITEM_BUDGET // max(n_items, 1))


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


def defined_count(values) -> int:
    """How many bootstrap replicates gave a defined (finite) figure: an interval is taken
    over those only, so it is reported next to the number drawn."""
    return int(np.isfinite(np.asarray(values, float)).sum())


def percentile_interval(values) -> tuple[float, float] | None:
    """The 2.5 and 97.5 percentiles of ``values`` (NaNs left out); None when none remain."""
    arr = np.asarray(values, float)
    arr = arr[~np.isnan(arr)]
    if not len(arr):
        return None
    low, high = np.percentile(arr, [2.5, 97.5])
    return (float(low), float(high))


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


@dataclass(frozen=True)
class PairedComparison:
    """Run A minus run B on the same items."""

    n_items: int
    accuracy_a: float
    accuracy_b: float
    accuracy_diff: float
    accuracy_diff_ci: tuple[float, float] | None
    spearman_a: float | None
    spearman_b: float | None
    spearman_diff: float | None
    spearman_diff_ci: tuple[float, float] | None
    wilcoxon_statistic: float | None
    wilcoxon_p: float | None
    mean_abs_error_a: float
    mean_abs_error_b: float
    replicates: int = 0  # paired replicates drawn
    spearman_diff_defined: int = 0  # replicates where both Spearmans are defined


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


def paired_result(
    score_a: Score, score_b: Score, d_acc, d_rho, err_a: np.ndarray, err_b: np.ndarray
) -> PairedComparison:
    """A :class:`PairedComparison` from both runs' official scores, the bootstrap
    differences of accuracy and Spearman, and the per-item absolute errors."""
    stat, p = wilcoxon_errors(err_a, err_b)
    rho_diff = None
    if score_a.spearman is not None and score_b.spearman is not None:
        rho_diff = score_a.spearman - score_b.spearman
    return PairedComparison(
        n_items=len(err_a),
        accuracy_a=score_a.accuracy,
        accuracy_b=score_b.accuracy,
        accuracy_diff=score_a.accuracy - score_b.accuracy,
        accuracy_diff_ci=percentile_interval(d_acc),
        spearman_a=score_a.spearman,
        spearman_b=score_b.spearman,
        spearman_diff=rho_diff,
        spearman_diff_ci=percentile_interval(d_rho) if rho_diff is not None else None,
        wilcoxon_statistic=stat,
        wilcoxon_p=p,
        mean_abs_error_a=float(err_a.mean()),
        mean_abs_error_b=float(err_b.mean()),
        replicates=len(d_rho),
        spearman_diff_defined=defined_count(d_rho),
    )


def wilcoxon_errors(err_a: np.ndarray, err_b: np.ndarray) -> tuple[float | None, float | None]:
    """Wilcoxon signed-rank statistic and p of paired errors; (None, None) when identical."""
    from scipy.stats import wilcoxon

    if not np.any(err_a != err_b):
        return None, None  # identical errors: the test is undefined
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = wilcoxon(err_a, err_b)
    return float(result.statistic), float(result.pvalue)
