"""Agreement statistics for graded ratings, as a pure module (numpy, no Django).

Input is one flat table of ratings (:class:`RatingTable`): aligned arrays of sample, rater,
score and the setup each sample belongs to. Setups are the bootstrap unit: the six samples
of a setup share a story, so they are resampled together.

This module holds the per-sample and per-rating building blocks:

* Krippendorff's alpha (interval) is built from per-unit value counts, because imported
  raters have no identity across samples; mean SD likewise.
* Each rating against the *other* ratings of its sample (:func:`rating_cases`): inside their
  accepted band by the official rule (:func:`annotations.official.is_within_sd`, never
  re-implemented here), and the others' mean.
* Groups of samples rated by the same set of raters, and weighted grouped ranks.

The human upper bound and leave-one-annotator-out Spearman live in
:mod:`annotations.metrics_annotators`, split-half reliability (the mean over many random
splits) in :mod:`annotations.metrics_splithalf`; all figures at once with bootstrap
intervals in :mod:`annotations.metrics_bootstrap`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from annotations.official import is_within_sd

MIN_SPEARMAN_ITEMS = 3  # a rank correlation over fewer items says nothing
MIN_GROUP_SAMPLES = 5  # smaller groups would let one lucky rating be "the best human"


@dataclass(frozen=True)
class RatingTable:
    """One entry per rating; ``sample``, ``rater`` and ``setup`` are integer codes.

    ``group`` (optional, integer codes) is each rating's annotator group when the design
    names it: a list-design study's list of the rater (``studies.lists``). Without it,
    groups are found from the data (:func:`sample_groups`)."""

    sample: np.ndarray
    rater: np.ndarray
    score: np.ndarray
    setup: np.ndarray
    group: np.ndarray | None = None

    @classmethod
    def from_rows(
        cls,
        rows: Iterable[tuple],
        setup_of: dict | None = None,
        group_of_rater: dict | None = None,
    ) -> RatingTable:
        """Build from ``(sample, rater, score)`` rows; ``setup_of`` maps sample -> setup
        (each sample is its own setup when omitted); ``group_of_rater`` maps rater -> its
        group (the design's groups, none when omitted)."""
        rows = list(rows)
        samples = [r[0] for r in rows]
        setups = [setup_of[s] for s in samples] if setup_of is not None else samples
        groups = None
        if group_of_rater is not None:
            groups = _codes([group_of_rater[r[1]] for r in rows])
        return cls(
            sample=_codes(samples),
            rater=_codes([r[1] for r in rows]),
            score=np.asarray([r[2] for r in rows], dtype=float),
            setup=_codes(setups),
            group=groups,
        )

    def __len__(self) -> int:
        return len(self.score)


def _codes(values) -> np.ndarray:
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.asarray(values), return_inverse=True)[1].astype(np.int64).ravel()


def compact(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values of a non-negative integer array, and each element's index
    into them (a bitmap instead of a sort where the values are dense enough)."""
    if len(key) and int(key.max()) < 4 * len(key) + 1024:
        present = np.zeros(int(key.max()) + 1, bool)
        present[key] = True
        return np.flatnonzero(present), (np.cumsum(present) - 1)[key]
    distinct, inverse = np.unique(key, return_inverse=True)
    return distinct, inverse.ravel()


def _domain(score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(score, return_inverse=True)``, without a sort for small whole scores."""
    whole = score.astype(np.int64) if len(score) else np.zeros(0, np.int64)
    if len(score) and whole.min() >= 0 and whole.max() < 1024 and (whole == score).all():
        domain, index = compact(whole)
        return domain.astype(score.dtype), index
    domain, index = np.unique(score, return_inverse=True)
    return domain, index.ravel()


def dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for a matrix ``a``, without BLAS: OpenBLAS's threads spin-wait when another
    process holds the cores (products 10-30x slower were seen on a busy 2-core machine),
    and the products here are thin enough for numpy's own loops."""
    return np.einsum("ij,j->i" if b.ndim == 1 else "ij,jk->ik", a, b)


# --- per-sample value counts, alpha and SD -------------------------------------------------


@dataclass(frozen=True)
class UnitCounts:
    """``counts[u, v]``: how many ratings of sample ``u`` have value ``domain[v]``;
    ``value[i]``: the index into ``domain`` of rating ``i``."""

    counts: np.ndarray
    domain: np.ndarray
    unit_setup: np.ndarray
    value: np.ndarray


def unit_counts(table: RatingTable) -> UnitCounts:
    domain, value_idx = _domain(table.score)
    n_units = int(table.sample.max()) + 1 if len(table) else 0
    flat = table.sample * len(domain) + value_idx
    counts = np.bincount(flat, minlength=n_units * len(domain)).reshape(n_units, len(domain))
    unit_setup = np.zeros(n_units, dtype=np.int64)
    unit_setup[table.sample] = table.setup
    return UnitCounts(counts, domain, unit_setup, value_idx)


def krippendorff_alpha(table: RatingTable, uc: UnitCounts | None = None) -> float | None:
    """Interval alpha via the ``krippendorff`` package; None where it is undefined."""
    import krippendorff

    uc = uc if uc is not None else unit_counts(table)
    pairable = uc.counts[uc.counts.sum(axis=1) >= 2]
    if len(pairable) == 0 or (pairable.sum(axis=0) > 0).sum() < 2:
        return None
    return float(
        krippendorff.alpha(
            value_counts=pairable, value_domain=uc.domain, level_of_measurement="interval"
        )
    )


def _alpha_parts(uc: UnitCounts) -> np.ndarray:
    """Per-unit additive parts of interval alpha: observed disagreement, pairable values,
    sum of values and sum of squares (only units with at least two ratings count)."""
    c = uc.counts.astype(float)
    m = c.sum(axis=1)
    v = uc.domain
    s1 = dot(c, v)
    s2 = dot(c, v * v)
    ok = m >= 2
    # sum over ordered pairs within the unit of (a-b)^2 = 2 (m s2 - s1^2); divided by m-1.
    observed = np.where(ok, 2 * (m * s2 - s1 * s1) / np.where(ok, m - 1, 1), 0.0)
    return np.column_stack([observed, m * ok, s1 * ok, s2 * ok])


def _alpha_from_parts(parts: np.ndarray) -> np.ndarray:
    """Alpha for rows of summed parts ``[observed, n, s1, s2]`` (closed form, interval)."""
    observed, n, s1, s2 = parts.T
    expected = 2 * (n * s2 - s1 * s1) / np.maximum(n - 1, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected > 0, 1 - observed / expected, np.nan)


def sample_sds(uc: UnitCounts) -> np.ndarray:
    """Sample SD (n-1) of each unit with at least two ratings, NaN otherwise."""
    c = uc.counts.astype(float)
    m = c.sum(axis=1)
    mean = dot(c, uc.domain) / np.maximum(m, 1)
    ss = dot(c, uc.domain**2) - m * mean * mean
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(m >= 2, np.sqrt(np.maximum(ss, 0) / (m - 1)), np.nan)


def mean_sd(table: RatingTable, uc: UnitCounts | None = None) -> float | None:
    """Mean of the per-sample sample SDs (samples with at least two ratings)."""
    sds = sample_sds(uc if uc is not None else unit_counts(table))
    sds = sds[~np.isnan(sds)]
    return float(sds.mean()) if len(sds) else None


# --- each rating against the other raters of its sample ----------------------------------


def others_means(table: RatingTable) -> np.ndarray:
    """Mean of the *other* ratings of each rating's sample (NaN where there are none)."""
    total = np.bincount(table.sample, table.score)
    n = np.bincount(table.sample)
    rest = n[table.sample] - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(rest > 0, (total[table.sample] - table.score) / rest, np.nan)


@dataclass(frozen=True)
class RatingCases:
    """Per rating: its value's index, whether it lies within the accepted band of the other
    ratings of its sample (1.0/0.0, NaN without others) and the rank code of the others'
    mean among all distinct others' means (for rank correlations)."""

    value: np.ndarray
    hits: np.ndarray
    others_rank: np.ndarray
    n_others_ranks: int


def distinct_rows(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(row code of each row, one copy of each distinct row)`` of a count matrix."""
    radix, width = int(counts.max()) + 1 if counts.size else 1, counts.shape[1]
    if width * np.log2(radix) < 62:  # one mixed-radix integer per row
        codes = counts @ (radix ** np.arange(width, dtype=np.int64))
        _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
        return inverse.ravel(), counts[first]
    distinct, inverse = np.unique(counts, axis=0, return_inverse=True)
    return inverse.ravel(), distinct


def rating_cases(table: RatingTable, uc: UnitCounts | None = None) -> RatingCases:
    """Each rating against the other ratings of its sample.

    A rating's case is its value and the multiset of the others; the official rule
    (:func:`is_within_sd`) is evaluated once per distinct case and mapped back (exact, and
    fast for a million ratings: there are a few thousand cases).
    """
    uc = uc if uc is not None else unit_counts(table)
    width = len(uc.domain)
    sample_case, case_counts = distinct_rows(uc.counts)
    used, index = compact(sample_case[table.sample] * width + uc.value)
    others = case_counts[used // width].copy()
    others[np.arange(len(used)), used % width] -= 1
    n_others = others.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(n_others > 0, dot(others, uc.domain) / n_others, np.nan)
    hits = np.full(len(used), np.nan)
    for k in np.flatnonzero(n_others):
        labels = np.repeat(uc.domain, others[k]).tolist()
        hits[k] = float(is_within_sd(float(uc.domain[used[k] % width]), labels))
    ranks, rank_of = np.unique(np.nan_to_num(means, nan=np.inf), return_inverse=True)
    return RatingCases(uc.value, hits[index], rank_of.ravel()[index], len(ranks))


def others_hits(table: RatingTable) -> np.ndarray:
    """1.0 where a rating is within the accepted band of the other ratings of its sample
    (the official rule), 0.0 outside, NaN where the sample has no other rating."""
    return rating_cases(table).hits


# --- weighted grouped rank correlation (for per-annotator Spearman and its bootstrap) --


class GroupedRanks:
    """Average ranks of ``x`` within each group, for any row weights.

    A row of weight ``w`` counts as ``w`` copies (ties get the average rank, as scipy
    does), so a bootstrap replicate needs no copying of rows: the sort is done once.
    """

    def __init__(self, group: np.ndarray, x: np.ndarray):
        # one integer sort instead of a lexsort: (group, rank of x) as a single key
        x_code = np.unique(x, return_inverse=True)[1].ravel() if len(x) else x
        self.order = np.argsort(group * (int(x_code.max()) + 1 if len(x) else 1) + x_code)
        g, xs = group[self.order], x[self.order]
        new_group = np.r_[True, g[1:] != g[:-1]] if len(g) else np.zeros(0, bool)
        new_run = new_group | (np.r_[True, xs[1:] != xs[:-1]] if len(xs) else new_group)
        self.run = np.cumsum(new_run) - 1
        run_group_start = np.cumsum(new_group)[new_run] - 1
        first_run_of_group = np.flatnonzero(new_group[new_run])
        self.first_run = first_run_of_group[run_group_start] if len(xs) else self.run

    def ranks(self, weights: np.ndarray) -> np.ndarray:
        run_w = np.bincount(self.run, weights[self.order], minlength=len(self.first_run))
        before = np.cumsum(run_w) - run_w
        start = before - before[self.first_run]
        out = np.empty(len(weights))
        out[self.order] = (start + (run_w + 1) / 2)[self.run]
        return out


def grouped_pearson(
    group: np.ndarray, x: np.ndarray, y: np.ndarray, w: np.ndarray, n_groups: int
) -> np.ndarray:
    """Weighted Pearson r per group; NaN where undefined (constant or too few items)."""

    def total(values):
        return np.bincount(group, values, minlength=n_groups)

    sw = total(w)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx, my = total(w * x) / sw, total(w * y) / sw
        vx = total(w * x * x) / sw - mx * mx
        vy = total(w * y * y) / sw - my * my
        cov = total(w * x * y) / sw - mx * my
        ok = (sw >= MIN_SPEARMAN_ITEMS) & (vx > 1e-12) & (vy > 1e-12)
        return np.where(ok, cov / np.sqrt(np.where(ok, vx * vy, 1)), np.nan)


def sample_groups(table: RatingTable) -> np.ndarray:
    """Group code of each sample: samples rated by exactly the same set of raters.

    The set is fingerprinted by two exact sums of random 40-bit weights of its raters (plus the
    set size), so grouping is vectorised; a collision needs two equal 80-bit sums.
    """
    n_units = int(table.sample.max()) + 1 if len(table) else 0
    if not n_units:
        return np.zeros(0, dtype=np.int64)
    rng = np.random.default_rng(12345)
    n_raters = int(table.rater.max()) + 1
    keys = [
        np.bincount(
            table.sample, rng.integers(0, 2**62, n_raters)[table.rater] % 2**40, minlength=n_units
        )
        for _ in range(2)
    ]
    keys.append(np.bincount(table.sample, minlength=n_units).astype(float))
    group = np.zeros(n_units, np.int64)  # the rows' lexicographic rank, one column at a time
    for column in keys:
        _, code = np.unique(column, return_inverse=True)
        _, group = np.unique(group * (int(code.max()) + 1) + code.ravel(), return_inverse=True)
    return group.ravel()
