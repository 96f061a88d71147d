"""Model runs against the humans at scale, as a pure module (numpy and scipy, no Django).

A sample's human labels are a multiset over the rating scale, held as a row of counts
(:class:`Labels`); a study of any size has only a few thousand distinct rows. The official
rule (:func:`annotations.official.is_within_sd`) accepts exactly the floats of one
interval around the labels' mean (each of its two conditions does, and both intervals hold
the mean), so the rule itself is asked, once per distinct row, for the interval's first and
last float, and each prediction is then judged by two comparisons: the verdicts are the
rule's own, bit for bit. Means are the official ``sum / count`` (exact in floats), Spearman
is scipy's as in the official scorer, and the setup bootstrap draws its replicates exactly
as :mod:`tests.predictions.comparison_oracle` does, so the figures match that module's.
"""

from __future__ import annotations

import math
import struct
import warnings
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from annotations.metrics import MIN_SPEARMAN_ITEMS, distinct_rows, dot
from annotations.official import is_within_sd, label_mean, label_sd, spearman
from predictions.evaluation import Score

CHUNK_CELLS = 2_000_000  # (replicate x item) cells held at once
LABELS = (1, 2, 3, 4, 5)
BOOTSTRAP_ITEM_BUDGET = 20_000_000  # item-replicates; large runs get fewer replicates
MIN_BOOTSTRAP = 100


def replicates(n_boot: int, n_items: int) -> int:
    """Replicates to draw: ``n_boot`` unless that exceeds the budget on large runs."""
    if n_items * n_boot <= BOOTSTRAP_ITEM_BUDGET:
        return n_boot
    return max(MIN_BOOTSTRAP, BOOTSTRAP_ITEM_BUDGET // max(n_items, 1))


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


@dataclass(frozen=True)
class Labels:
    """``counts[i, v]``: how many human labels of item ``i`` equal ``scale[v]``."""

    counts: np.ndarray
    scale: np.ndarray

    def __len__(self) -> int:
        return len(self.counts)

    def take(self, index) -> Labels:
        return Labels(self.counts[index], self.scale)

    @cached_property
    def means(self) -> np.ndarray:
        """``sum(labels) / len(labels)`` per item, as the official scorer computes it."""
        return dot(self.counts, self.scale) / self.counts.sum(axis=1)

    @cached_property
    def bands(self) -> tuple[np.ndarray, np.ndarray]:
        """First and last float the official rule accepts, per item."""
        rows, distinct = distinct_rows(self.counts)
        whole = bool(np.all(self.scale == np.round(self.scale)))
        values = self.scale.astype(np.int64) if whole else self.scale  # as stored: ints
        ends = np.array([_band(np.repeat(values, row).tolist()) for row in distinct])
        return ends[rows, 0], ends[rows, 1]

    def inside(self, preds: np.ndarray) -> np.ndarray:
        low, high = self.bands
        return (preds >= low) & (preds <= high)


def _band(labels: list) -> tuple[float, float]:
    avg, half = label_mean(labels), max(label_sd(labels), 1.0)
    return _edge(labels, avg, avg - half, -math.inf), _edge(labels, avg, avg + half, math.inf)


def _edge(labels: list, avg: float, guess: float, outward: float) -> float:
    """The last float the rule accepts going from the mean (accepted) towards ``outward``
    (an infinity, never accepted). ``guess``, the band's end computed in floats, is
    usually within a float or two of it; otherwise bisect over the floats in order (near
    zero there are far more floats between the two than near the mean)."""
    if is_within_sd(guess, labels):
        accepted, rejected = guess, outward
        for _ in range(4):
            step = math.nextafter(accepted, outward)
            if not is_within_sd(step, labels):
                return accepted
            accepted = step
    else:
        accepted, rejected = avg, guess
        for _ in range(4):
            step = math.nextafter(rejected, -outward)
            if is_within_sd(step, labels):
                return step
            rejected = step
    good, bad = _ordered(accepted), _ordered(rejected)
    while abs(good - bad) > 1:  # the accepted floats form an interval: bisect its end
        middle = (good + bad) // 2
        if is_within_sd(_float(middle), labels):
            good = middle
        else:
            bad = middle
    return _float(good)


def _ordered(x: float) -> int:
    """Floats as integers in the same order (adjacent floats are adjacent integers)."""
    (bits,) = struct.unpack("<q", struct.pack("<d", x))
    return bits if bits >= 0 else -(bits & 0x7FFF_FFFF_FFFF_FFFF)


def _float(i: int) -> float:
    bits = i if i >= 0 else (-i) | -0x8000_0000_0000_0000
    return struct.unpack("<d", struct.pack("<q", bits))[0]


def official(labels: Labels, preds: np.ndarray) -> Score:
    """The official scores of aligned predictions (:func:`predictions.evaluation.score_lists`)."""
    correct = int(labels.inside(preds).sum())
    total = len(preds)
    return Score(correct / total, correct, total, spearman(preds, labels.means))


def split_by_ending(labels: Labels, preds: np.ndarray, ended: np.ndarray) -> dict:
    """Official scores on all items, on open-ended stories and on ended ones (Table 7)."""
    parts: dict[str, Score | None] = {"all": official(labels, preds)}
    for name, want in (("open", False), ("ended", True)):
        keep = np.flatnonzero(ended == want)
        parts[name] = official(labels.take(keep), preds[keep]) if len(keep) else None
    return parts


def label_distribution(values: np.ndarray) -> list[float]:
    """Share of each label after rounding half up onto the scale (Table 6), as
    :func:`tests.predictions.comparison_oracle.label_distribution` gives it."""
    if not len(values):
        return [0.0] * len(LABELS)
    rounded = np.clip(np.floor(np.asarray(values, float) + 0.5), LABELS[0], LABELS[-1])
    counts = np.bincount(rounded.astype(np.int64) - LABELS[0], minlength=len(LABELS))
    return (counts / counts.sum()).tolist()


class SetupSpearman:
    """Spearman's rho of ``x`` and ``y`` where each item counts as often as its setup was
    drawn, for a block of replicates at once (rows of setup counts). Ranks are cumulative
    sums of weights in ``x`` order; tied items (a run of equal ``x``) get their run's
    average rank. ``y`` takes few values (human means), so its ranks come from per-setup
    counts of each value. All sums are of integers and halves: exact for a study of any
    realistic size."""

    def __init__(self, setup: np.ndarray, n_setups: int, x: np.ndarray, y: np.ndarray):
        order = np.argsort(x, kind="stable")
        xs = x[order]
        run = np.cumsum(np.r_[True, xs[1:] != xs[:-1]]) - 1
        self.setup = setup[order]
        self.items = np.bincount(self.setup, minlength=n_setups).astype(float)
        self.tied = np.flatnonzero(np.bincount(run)[run] > 1)
        new_run = np.r_[True, run[self.tied][1:] != run[self.tied][:-1]]
        self.tied_start = np.flatnonzero(new_run) if len(self.tied) else self.tied
        self.tied_run = np.cumsum(new_run) - 1 if len(self.tied) else self.tied
        _, self.y_code = np.unique(y[order], return_inverse=True)
        n_y = int(self.y_code.max()) + 1 if len(xs) else 0
        flat = np.bincount(self.setup * n_y + self.y_code, minlength=n_setups * n_y)
        self.y_counts = flat.reshape(n_setups, n_y).astype(float)

    def rho(self, counts: np.ndarray) -> np.ndarray:
        w = np.take(counts, self.setup, axis=1)
        n = dot(counts, self.items)
        rx = np.cumsum(w, axis=1)  # average rank of an untied item: cumsum - (w - 1) / 2
        rx -= 0.5 * w
        rx += 0.5
        if len(self.tied):
            first = self.tied[self.tied_start]
            before = rx[:, first] - 0.5 * (w[:, first] + 1)
            run_w = np.add.reduceat(w[:, self.tied], self.tied_start, axis=1)
            rx[:, self.tied] = (before + (run_w + 1) / 2)[:, self.tied_run]
        y_w = dot(counts, self.y_counts)
        ry = np.cumsum(y_w, axis=1) - (y_w - 1) / 2
        syy = np.einsum("ij,ij,ij->i", y_w, ry, ry)
        sxx = np.einsum("ij,ij,ij->i", w, rx, rx)
        sxy = np.einsum("ij,ij,ij->i", w, rx, np.take(ry, self.y_code, axis=1))
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_sq = ((n + 1) / 2) ** 2
            vx, vy, cov = sxx / n - mean_sq, syy / n - mean_sq, sxy / n - mean_sq
            ok = (n >= MIN_SPEARMAN_ITEMS) & (vx > 1e-12) & (vy > 1e-12)
            return np.where(ok, cov / np.sqrt(np.where(ok, vx * vy, 1)), np.nan)


class _Bootstrap:
    """Setup replicates drawn as :mod:`tests.predictions.comparison_oracle` draws them (one
    ``rng.integers(0, n_setups, n_setups)`` per replicate), in blocks of rows of counts."""

    def __init__(self, setups, n_items: int, n_boot: int, seed: int):
        self.setup = np.unique(np.asarray(setups), return_inverse=True)[1].ravel()
        self.n_setups = int(self.setup.max()) + 1 if len(self.setup) else 0
        self.n = replicates(n_boot, n_items)
        self.rng = np.random.default_rng(seed)
        self.step = max(1, CHUNK_CELLS // max(n_items, 1))

    def blocks(self):
        for start in range(0, self.n, self.step):
            size = min(self.step, self.n - start)
            draws = self.rng.integers(0, self.n_setups, (size, self.n_setups))
            offsets = (np.arange(size) * self.n_setups)[:, None]
            flat = np.bincount((draws + offsets).ravel(), minlength=size * self.n_setups)
            yield flat.reshape(size, self.n_setups).astype(float)

    def per_setup(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.setup, values, minlength=self.n_setups)


def run_intervals(labels: Labels, preds, setups, *, n_boot: int = 1000, seed: int = 0) -> dict:
    """Percentile bootstrap 95% intervals of accuracy and Spearman, resampling setups
    (:func:`tests.predictions.comparison_oracle.run_intervals`)."""
    boot = _Bootstrap(setups, len(preds), n_boot, seed)
    hits = boot.per_setup(labels.inside(preds).astype(float))
    items = boot.per_setup(np.ones(len(preds)))
    ranks = SetupSpearman(boot.setup, boot.n_setups, np.asarray(preds, float), labels.means)
    acc, rho = [], []
    for counts in boot.blocks():
        acc.append(dot(counts, hits) / dot(counts, items))
        rho.append(ranks.rho(counts))
    acc_all, rho_all = np.concatenate(acc), np.concatenate(rho)
    return {
        "accuracy": percentile_interval(acc_all),
        "spearman": percentile_interval(rho_all),
        # replicates where each figure is defined (the interval's basis), of those drawn
        "defined": {"accuracy": defined_count(acc_all), "spearman": defined_count(rho_all)},
    }


def paired_comparison(
    labels: Labels, preds_a, preds_b, setups, *, n_boot: int = 1000, seed: int = 0
) -> PairedComparison:
    """Paired bootstrap (setups) on the differences of accuracy and Spearman, and a
    Wilcoxon signed-rank test on the per-item absolute errors against the human mean
    (:func:`tests.predictions.comparison_oracle.paired_comparison`)."""
    preds_a, preds_b = np.asarray(preds_a, float), np.asarray(preds_b, float)
    boot = _Bootstrap(setups, len(preds_a), n_boot, seed)
    hits_a = boot.per_setup(labels.inside(preds_a).astype(float))
    hits_b = boot.per_setup(labels.inside(preds_b).astype(float))
    items = boot.per_setup(np.ones(len(preds_a)))
    ranks_a = SetupSpearman(boot.setup, boot.n_setups, preds_a, labels.means)
    ranks_b = SetupSpearman(boot.setup, boot.n_setups, preds_b, labels.means)
    d_acc, d_rho = [], []
    for counts in boot.blocks():
        n = dot(counts, items)
        d_acc.append(dot(counts, hits_a) / n - dot(counts, hits_b) / n)
        d_rho.append(ranks_a.rho(counts) - ranks_b.rho(counts))
    score_a, score_b = official(labels, preds_a), official(labels, preds_b)
    err_a, err_b = np.abs(preds_a - labels.means), np.abs(preds_b - labels.means)
    return paired_result(
        score_a, score_b, np.concatenate(d_acc), np.concatenate(d_rho), err_a, err_b
    )
