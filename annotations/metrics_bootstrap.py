"""All agreement figures at once, with percentile bootstrap 95% intervals over setups.

A pure module (numpy, no Django). Setups are the bootstrap unit: the six samples of a setup
share a story, so they are resampled together. A replicate is a row of *setup weights* (how
often each setup was drawn). Alpha, mean SD and split-half are sums of per-setup parts, so
all their replicates are one matrix product; the per-annotator figures take the weight rows
directly (:class:`annotations.metrics_annotators.AnnotatorScores`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .metrics import (
    MIN_GROUP_SAMPLES,
    RatingTable,
    _alpha_from_parts,
    _alpha_parts,
    compact,
    dot,
    krippendorff_alpha,
    mean_sd,
    sample_sds,
    spearman_brown,
    split_halves,
    unit_counts,
)
from .metrics_annotators import (
    AnnotatorScores,
    annotator_scores,
    loo_spearman,
    upper_bound_figures,
)

BOOTSTRAP_ROW_BUDGET = 10_000_000  # rating-replicates of the per-annotator figures
MIN_BOOTSTRAP = 20
CHUNK = 100  # replicates drawn at once


@dataclass
class Agreement:
    """Point estimates ``values[key]`` and 95% intervals ``intervals[key] = (low, high)``."""

    values: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    n_ratings: int
    n_samples: int
    n_setups: int
    n_boot: int
    n_boot_annotators: int
    groups_known: bool
    n_groups: int
    loo: dict[str, float]


def _split_half_value(a: np.ndarray, b: np.ndarray, ok: np.ndarray) -> float:
    if ok.sum() < 3 or np.std(a[ok]) == 0 or np.std(b[ok]) == 0:
        return float("nan")
    return spearman_brown(float(np.corrcoef(a[ok], b[ok])[0, 1]))


class _Resampler:
    """Alpha, mean SD and split-half summed per setup (one matrix: 4 + 2 + 6 columns), so
    that the figures of a block of replicates are one product with its weight matrix."""

    def __init__(self, uc, halves: tuple[np.ndarray, np.ndarray, np.ndarray]):
        self.n_setups = int(uc.unit_setup.max()) + 1
        sds = sample_sds(uc)
        a, b, ok = halves
        a, b = np.where(ok, a, 0.0), np.where(ok, b, 0.0)
        columns = np.column_stack(
            [_alpha_parts(uc), np.nan_to_num(sds), ~np.isnan(sds), ok, a, b, a * a, b * b, a * b]
        )
        self.sums = np.column_stack(
            [np.bincount(uc.unit_setup, c, minlength=self.n_setups) for c in columns.T]
        )

    def fixed(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        """Alpha, mean SD and split-half for a (replicates x setups) weight matrix."""
        sums = dot(weights, self.sums)
        alpha = _alpha_from_parts(sums[:, :4])
        sd_total, sd_n = sums[:, 4], sums[:, 5]
        n, sa, sb, saa, sbb, sab = sums[:, 6:].T
        cov, va, vb = n * sab - sa * sb, n * saa - sa * sa, n * sbb - sb * sb
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where((va > 0) & (vb > 0), cov / np.sqrt(va * vb), np.nan)
            return {
                "alpha": alpha,
                "mean_sd": np.where(sd_n > 0, sd_total / sd_n, np.nan),
                "split_half": 2 * r / (1 + r),
            }


def agreement(
    table: RatingTable, *, groups_known: bool, n_boot: int = 1000, seed: int = 0
) -> Agreement:
    """All agreement figures with percentile bootstrap 95% intervals over setups (seeded).

    Alpha, mean SD and split-half get ``n_boot`` replicates; the per-annotator figures
    (upper bound, LOO Spearman) get fewer on large data (``n_boot_annotators``).
    """
    uc = unit_counts(table)
    ann = annotator_scores(table, groups_known=groups_known, uc=uc)
    ok_groups = _ok_groups(ann) if groups_known else None
    halves = split_halves(table, seed)
    values = {
        "alpha": krippendorff_alpha(table, uc),
        "mean_sd": mean_sd(table, uc),
        "split_half": _split_half_value(*halves),
        **upper_bound_figures(ann, ok_groups),
    }
    loo = loo_spearman(ann)
    values["loo_spearman"] = loo["mean"]
    intervals, n_annotator = {}, 0
    if n_boot > 0 and len(table):
        reps = _replicate(_Resampler(uc, halves), ann, ok_groups, n_boot, seed)
        intervals = {key: _percentile(reps[key]) for key in values if key in reps}
        n_annotator = _replicates(n_boot, ann.n_rows)
    return Agreement(
        values={k: (float("nan") if v is None else float(v)) for k, v in values.items()},
        intervals=intervals,
        n_ratings=len(table),
        n_samples=len(compact(table.sample)[0]),
        n_setups=len(compact(table.setup)[0]),
        n_boot=n_boot if n_boot > 0 else 0,
        n_boot_annotators=n_annotator,
        groups_known=groups_known,
        n_groups=int(ok_groups.sum()) if ok_groups is not None else 0,
        loo=loo,
    )


def _ok_groups(ann: AnnotatorScores) -> np.ndarray:
    """Groups usable for the best-per-group variant: enough samples, at least two raters."""
    sizes = np.bincount(ann.sample_group)
    raters = np.bincount(ann.unit_group, minlength=len(sizes))
    return (sizes >= MIN_GROUP_SAMPLES) & (raters >= 2)


def _replicates(n_boot: int, n_rows: int) -> int:
    """Replicates of the per-annotator figures: their cost grows with the ratings."""
    if n_rows * n_boot <= BOOTSTRAP_ROW_BUDGET:
        return n_boot
    return max(MIN_BOOTSTRAP, BOOTSTRAP_ROW_BUDGET // max(n_rows, 1))


def setup_weights(rng, n_setups: int, n_boot: int) -> np.ndarray:
    """Each row: how often each setup was drawn in one replicate (with replacement).

    The draws are those of ``rng.integers(0, n_setups, n_setups)`` once per replicate."""
    draws = rng.integers(0, n_setups, (n_boot, n_setups), dtype=np.int32)
    offsets = (np.arange(n_boot, dtype=np.int64) * n_setups)[:, None]
    flat = np.bincount((draws + offsets).ravel(), minlength=n_boot * n_setups)
    return flat.reshape(n_boot, n_setups).astype(float)


def _replicate(res: _Resampler, ann, ok_groups, n_boot: int, seed: int) -> dict[str, list]:
    """All replicates of the cheap figures; the first ``_replicates(...)`` of them also
    for the per-annotator figures (the same draws, so the figures stay paired)."""
    rng = np.random.default_rng(seed)
    n_annotator = _replicates(n_boot, ann.n_rows)
    reps: dict[str, list] = {}
    annotator_weights = []
    for start in range(0, n_boot, CHUNK):
        weights = setup_weights(rng, res.n_setups, min(CHUNK, n_boot - start))
        for key, values in res.fixed(weights).items():
            reps.setdefault(key, []).extend(values.tolist())
        annotator_weights.append(weights[: max(0, n_annotator - start)])
    figures = upper_bound_figures(ann, ok_groups, np.vstack(annotator_weights))
    figures["loo_spearman"] = figures["average_spearman"]
    for key, values in figures.items():
        reps.setdefault(key, []).extend(values.tolist())
    return reps


def _percentile(values: list[float]) -> tuple[float, float]:
    arr = np.asarray(values, dtype=float)
    arr = arr[~np.isnan(arr)]
    if not len(arr):
        return (float("nan"), float("nan"))
    low, high = np.percentile(arr, [2.5, 97.5])
    return (float(low), float(high))
