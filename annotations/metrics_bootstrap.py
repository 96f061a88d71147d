"""All agreement figures at once, with percentile bootstrap 95% intervals over setups.

A pure module (numpy, no Django). Setups are the bootstrap unit: the six samples of a setup
share a story, so they are resampled together. A replicate is a row of *setup weights* (how
often each setup was drawn). Alpha and mean SD are sums of per-setup parts, so all their
replicates are one matrix product; split-half likewise, with a random split of its own per
replicate (:class:`annotations.metrics_splithalf.SplitSums`); the per-annotator figures
take the weight rows directly (:class:`annotations.metrics_annotators.AnnotatorScores`).

A figure can be undefined in a replicate (a Spearman over constant ranks, alpha without
variation); the interval is taken over the replicates where it is defined, and
:class:`Agreement` says how many those were (``defined``) of how many were drawn
(``drawn``), so that "1000 replicates" is never claimed for fewer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    unit_counts,
)
from .metrics_annotators import (
    AnnotatorScores,
    annotator_scores,
    group_figures,
    loo_spearman,
    upper_bound_figures,
)
from .metrics_splithalf import SPLITS, SplitSums, split_count, split_sums

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
    split_half: dict[str, float]  # the mean over random splits: sd, min, max, splits, defined
    defined: dict[str, int] = field(default_factory=dict)  # replicates where it is defined
    drawn: dict[str, int] = field(default_factory=dict)  # replicates drawn for the figure
    groups_by_design: bool = False  # the groups are the design's (``RatingTable.group``)
    groups: list[dict] = field(default_factory=list)  # the usable groups' ``GroupFigures``
    n_small_groups: int = 0  # groups too small for the upper bound (not in ``groups``)


class _Resampler:
    """Alpha and mean SD summed per setup (one matrix: 4 + 2 columns), so that the figures
    of a block of replicates are one product with its weight matrix; split-half from the
    per-setup sums of each replicate's own split."""

    def __init__(self, uc, splits: SplitSums):
        self.n_setups = int(uc.unit_setup.max()) + 1
        self.splits = splits
        sds = sample_sds(uc)
        columns = np.column_stack([_alpha_parts(uc), np.nan_to_num(sds), ~np.isnan(sds)])
        self.sums = np.column_stack(
            [np.bincount(uc.unit_setup, c, minlength=self.n_setups) for c in columns.T]
        )

    def figures(self, weights: np.ndarray, first: int) -> dict[str, np.ndarray]:
        """Alpha, mean SD and split-half for a (replicates x setups) weight matrix whose
        first row is replicate number ``first``."""
        sums = dot(weights, self.sums)
        sd_total, sd_n = sums[:, 4], sums[:, 5]
        with np.errstate(invalid="ignore", divide="ignore"):
            return {
                "alpha": _alpha_from_parts(sums[:, :4]),
                "mean_sd": np.where(sd_n > 0, sd_total / sd_n, np.nan),
                "split_half": self.splits.replicates(weights, first),
            }


def agreement(
    table: RatingTable, *, groups_known: bool, n_boot: int = 1000, seed: int = 0
) -> Agreement:
    """All agreement figures with percentile bootstrap 95% intervals over setups (seeded).

    Alpha, mean SD and split-half get ``n_boot`` replicates; the per-annotator figures
    (upper bound, LOO Spearman) get fewer on large data (``n_boot_annotators``).
    Split-half is the mean over ``SPLITS`` random splits (fewer on very large data), and
    replicate ``k`` uses split ``k % splits``, so the replicates' splits vary as much as
    the splits of the estimate (drawing a fresh split per replicate would cost a draw per
    sample and replicate for the same spread).
    """
    uc = unit_counts(table)
    ann = annotator_scores(table, groups_known=groups_known, uc=uc)
    ok_groups = _ok_groups(ann) if groups_known else None
    n_samples = int((uc.counts.sum(axis=1) > 0).sum())
    splits = split_sums(uc, split_count(n_samples, SPLITS), seed)
    split_half = _split_summary(splits.figures())
    values = {
        "alpha": krippendorff_alpha(table, uc),
        "mean_sd": mean_sd(table, uc),
        "split_half": split_half["mean"],
        **upper_bound_figures(ann, ok_groups),
    }
    loo = loo_spearman(ann)
    values["loo_spearman"] = loo["mean"]
    intervals, defined, drawn, n_annotator = {}, {}, {}, 0
    if n_boot > 0 and len(table):
        reps = _replicate(_Resampler(uc, splits), ann, ok_groups, n_boot, seed)
        for key in values:
            if key in reps:
                intervals[key], defined[key] = _percentile(reps[key])
                drawn[key] = len(reps[key])
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
        split_half=split_half,
        defined=defined,
        drawn=drawn,
        groups_by_design=groups_known and table.group is not None,
        groups=group_figures(ann, ok_groups).rows(usable_only=True)
        if ok_groups is not None
        else [],
        n_small_groups=int((~ok_groups).sum()) if ok_groups is not None else 0,
    )


def _split_summary(figures: np.ndarray) -> dict[str, float]:
    """The mean over the splits where the figure is defined, and their spread."""
    ok = figures[np.isfinite(figures)]
    nan = float("nan")
    return {
        "mean": float(ok.mean()) if len(ok) else nan,
        "sd": float(ok.std(ddof=1)) if len(ok) > 1 else nan,
        "min": float(ok.min()) if len(ok) else nan,
        "max": float(ok.max()) if len(ok) else nan,
        "splits": len(figures),
        "defined": len(ok),
    }


def _ok_groups(ann: AnnotatorScores) -> np.ndarray:
    """Groups usable for the best-per-group variant: enough samples, at least two raters."""
    sizes = ann.group_samples
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
        for key, values in res.figures(weights, start).items():
            reps.setdefault(key, []).extend(values.tolist())
        annotator_weights.append(weights[: max(0, n_annotator - start)])
    figures = upper_bound_figures(ann, ok_groups, np.vstack(annotator_weights))
    figures["loo_spearman"] = figures["average_spearman"]
    for key, figure in figures.items():
        reps.setdefault(key, []).extend(np.asarray(figure).tolist())
    return reps


def _percentile(values: list[float]) -> tuple[tuple[float, float], int]:
    """The 95% percentile interval over the replicates where the figure is defined, and
    how many those are."""
    arr = np.asarray(values, dtype=float)
    arr = arr[np.isfinite(arr)]
    if not len(arr):
        return (float("nan"), float("nan")), 0
    low, high = np.percentile(arr, [2.5, 97.5])
    return (float(low), float(high)), len(arr)
