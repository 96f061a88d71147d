"""Agreement statistics for graded ratings, as a pure module (numpy, no Django).

Input is one flat table of ratings (:class:`RatingTable`): aligned arrays of sample, rater,
score and the setup each sample belongs to. Setups are the bootstrap unit: the six samples
of a setup share a story, so they are resampled together.

* Krippendorff's alpha (interval) is built from per-unit value counts, because imported
  raters have no identity across samples.
* The human upper bound follows the AmbiStory paper: each annotator's rating of a sample is
  scored against the *other* annotators of that sample with the official rule
  (:func:`predictions.evaluation.is_within_sd`, never re-implemented here) and the official
  Spearman (rank correlation with the others' means). Annotators are scored per group
  (samples rated by the same set of raters); the *average* variant averages all annotators,
  the *best-per-group* variant (the paper's figure) averages the best annotator of each group.
* Leave-one-annotator-out Spearman follows the RAW-C paper: each annotator's ratings against
  the mean of the others on the items they rated, averaged over annotators.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from predictions.evaluation import is_within_sd

MIN_SPEARMAN_ITEMS = 3  # a rank correlation over fewer items says nothing
MIN_GROUP_SAMPLES = 5  # smaller groups would let one lucky rating be "the best human"


@dataclass(frozen=True)
class RatingTable:
    """One entry per rating; ``sample``, ``rater`` and ``setup`` are integer codes."""

    sample: np.ndarray
    rater: np.ndarray
    score: np.ndarray
    setup: np.ndarray

    @classmethod
    def from_rows(cls, rows: Iterable[tuple], setup_of: dict | None = None) -> RatingTable:
        """Build from ``(sample, rater, score)`` rows; ``setup_of`` maps sample -> setup
        (each sample is its own setup when omitted)."""
        rows = list(rows)
        samples = [r[0] for r in rows]
        setups = [setup_of[s] for s in samples] if setup_of is not None else samples
        return cls(
            sample=_codes(samples),
            rater=_codes([r[1] for r in rows]),
            score=np.asarray([r[2] for r in rows], dtype=float),
            setup=_codes(setups),
        )

    def __len__(self) -> int:
        return len(self.score)


def _codes(values) -> np.ndarray:
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.asarray(values), return_inverse=True)[1].astype(np.int64).ravel()


# --- per-sample value counts, alpha and SD -------------------------------------------------


@dataclass(frozen=True)
class UnitCounts:
    """``counts[u, v]``: how many ratings of sample ``u`` have value ``domain[v]``."""

    counts: np.ndarray
    domain: np.ndarray
    unit_setup: np.ndarray


def unit_counts(table: RatingTable) -> UnitCounts:
    domain, value_idx = np.unique(table.score, return_inverse=True)
    n_units = int(table.sample.max()) + 1 if len(table) else 0
    flat = table.sample * len(domain) + value_idx.ravel()
    counts = np.bincount(flat, minlength=n_units * len(domain)).reshape(n_units, len(domain))
    unit_setup = np.zeros(n_units, dtype=np.int64)
    unit_setup[table.sample] = table.setup
    return UnitCounts(counts, domain, unit_setup)


def krippendorff_alpha(table: RatingTable) -> float | None:
    """Interval alpha via the ``krippendorff`` package; None where it is undefined."""
    import krippendorff

    uc = unit_counts(table)
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
    s1 = c @ v
    s2 = c @ (v * v)
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
    mean = (c @ uc.domain) / np.maximum(m, 1)
    ss = c @ (uc.domain**2) - m * mean * mean
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(m >= 2, np.sqrt(np.maximum(ss, 0) / (m - 1)), np.nan)


def mean_sd(table: RatingTable) -> float | None:
    """Mean of the per-sample sample SDs (samples with at least two ratings)."""
    sds = sample_sds(unit_counts(table))
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


def others_hits(table: RatingTable) -> np.ndarray:
    """1.0 where a rating is within the accepted band of the other ratings of its sample
    (the official rule), 0.0 outside, NaN where the sample has no other rating.

    The rule depends only on the rating and the multiset of the others, so it is evaluated
    once per distinct case and mapped back (exact, and fast for a million ratings).
    """
    uc = unit_counts(table)
    value_idx = np.searchsorted(uc.domain, table.score)
    others = uc.counts[table.sample].copy()
    others[np.arange(len(table)), value_idx] -= 1
    # one integer per (rating value, multiset of the others): a mixed-radix code
    radix = int(uc.counts.max()) + 1 if len(table) else 1
    codes = value_idx.astype(np.int64)
    scale = len(uc.domain)
    for column in others.T:
        codes = codes + column * scale
        scale *= radix
    distinct, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    results = np.empty(len(distinct))
    for k, row in enumerate(first):
        labels = np.repeat(uc.domain, others[row]).tolist()
        value = float(uc.domain[value_idx[row]])
        results[k] = float(is_within_sd(value, labels)) if labels else np.nan
    return results[inverse.ravel()]


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


@dataclass
class AnnotatorScores:
    """Per annotator unit (a rater within one group): the official metrics vs the others."""

    unit: np.ndarray  # annotator unit of each usable rating
    unit_group: np.ndarray  # group of each annotator unit
    hits: np.ndarray  # per usable rating
    x_ranks: GroupedRanks = field(repr=False)
    y_ranks: GroupedRanks = field(repr=False)
    rows: np.ndarray  # indices of the usable ratings in the table
    n_units: int = 0
    sample_group: np.ndarray | None = None  # group code of each sample

    def scores(self, row_weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(accuracy, spearman)`` per unit for the given weights (all 1 by default)."""
        w = np.ones(len(self.rows)) if row_weights is None else row_weights
        n = np.bincount(self.unit, w, minlength=self.n_units)
        with np.errstate(invalid="ignore", divide="ignore"):
            acc = np.where(n > 0, np.bincount(self.unit, w * self.hits, self.n_units) / n, np.nan)
        rho = grouped_pearson(
            self.unit, self.x_ranks.ranks(w), self.y_ranks.ranks(w), w, self.n_units
        )
        return acc, rho


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
    return np.unique(np.column_stack(keys), axis=0, return_inverse=True)[1].ravel()


def annotator_scores(table: RatingTable, *, groups_known: bool) -> AnnotatorScores:
    """Score every rating against the other ratings of its sample, per annotator unit.

    With ``groups_known`` an annotator unit is a rater within one group (the paper's
    groups); otherwise (imported data: raters are import positions, not people) a unit is
    a rater and all samples form one group.
    """
    n_per_sample = np.bincount(table.sample)
    rows = np.flatnonzero(n_per_sample[table.sample] >= 2)
    groups = sample_groups(table) if groups_known else np.zeros(len(n_per_sample), np.int64)
    pair = groups[table.sample[rows]] * (int(table.rater.max()) + 1) + table.rater[rows]
    unit_values, unit = np.unique(pair, return_inverse=True)
    unit = unit.ravel()
    unit_group = unit_values // (int(table.rater.max()) + 1)
    hits = others_hits(table)[rows]
    loo = others_means(table)[rows]
    return AnnotatorScores(
        unit=unit,
        unit_group=unit_group,
        hits=hits,
        x_ranks=GroupedRanks(unit, table.score[rows]),
        y_ranks=GroupedRanks(unit, loo),
        rows=rows,
        n_units=len(unit_values),
        sample_group=groups,
    )


def _best_per_group(values: np.ndarray, unit_group: np.ndarray, ok_groups: np.ndarray) -> float:
    best = np.full(len(ok_groups), -np.inf)
    finite = ~np.isnan(values)
    np.maximum.at(best, unit_group[finite], values[finite])
    chosen = best[ok_groups & np.isfinite(best)]
    return float(chosen.mean()) if len(chosen) else float("nan")


def _nanmean(values: np.ndarray) -> float:
    values = values[~np.isnan(values)]
    return float(values.mean()) if len(values) else float("nan")


def upper_bound_figures(
    ann: AnnotatorScores, ok_groups: np.ndarray | None, weights: np.ndarray | None = None
) -> dict[str, float]:
    """The human upper bound: ``average_*`` over all annotator units, ``best_*`` the mean
    over groups of the group's best unit (each metric's best chosen separately)."""
    acc, rho = ann.scores(weights)
    out = {"average_accuracy": _nanmean(acc), "average_spearman": _nanmean(rho)}
    if ok_groups is not None:
        out["best_accuracy"] = _best_per_group(acc, ann.unit_group, ok_groups)
        out["best_spearman"] = _best_per_group(rho, ann.unit_group, ok_groups)
    return out


def loo_spearman(ann: AnnotatorScores) -> dict[str, float]:
    """RAW-C's leave-one-annotator-out agreement: per annotator, Spearman between their
    ratings and the others' mean on the same items; mean, median, min, max over annotators."""
    rho = ann.scores()[1]
    rho = rho[~np.isnan(rho)]
    if not len(rho):
        return {
            "mean": float("nan"),
            "median": float("nan"),
            "min": float("nan"),
            "max": float("nan"),
            "n": 0,
        }
    return {
        "mean": float(rho.mean()),
        "median": float(np.median(rho)),
        "min": float(rho.min()),
        "max": float(rho.max()),
        "n": int(len(rho)),
    }


# --- split-half reliability ---------------------------------------------------------------


def split_halves(table: RatingTable, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Randomly split each sample's ratings into two halves; return ``(mean_a, mean_b, ok)``
    per sample (``ok``: the sample has at least two ratings)."""
    rng = np.random.default_rng(seed)
    # one float sort: the integer part orders samples, the random fraction shuffles within
    order = np.argsort(table.sample + rng.random(len(table)) * 0.5)
    s = table.sample[order]
    n = np.bincount(table.sample)
    first = np.r_[0, np.flatnonzero(np.diff(s)) + 1] if len(s) else np.zeros(0, np.int64)
    start = np.zeros(len(n), np.int64)
    start[s[first]] = first
    rank = np.arange(len(s)) - start[s]
    half_a = rank * 2 < n[s]
    scores = table.score[order]
    na = np.bincount(s, half_a, minlength=len(n))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_a = np.bincount(s, scores * half_a, minlength=len(n)) / na
        mean_b = np.bincount(s, scores * ~half_a, minlength=len(n)) / (n - na)
    return mean_a, mean_b, n >= 2


def spearman_brown(r: float) -> float:
    """Reliability of the full-length mean from the correlation of two halves."""
    return 2 * r / (1 + r) if r > -1 else float("nan")


def split_half(table: RatingTable, seed: int = 0) -> dict[str, float]:
    """Pearson r between the half means across samples, and its Spearman-Brown correction."""
    a, b, ok = split_halves(table, seed)
    if ok.sum() < 3 or np.std(a[ok]) == 0 or np.std(b[ok]) == 0:
        return {"r": float("nan"), "corrected": float("nan")}
    r = float(np.corrcoef(a[ok], b[ok])[0, 1])
    return {"r": r, "corrected": spearman_brown(r)}


# --- everything at once, with bootstrap intervals over setups -----------------------------

BOOTSTRAP_ROW_BUDGET = 10_000_000  # rating-replicates of the per-annotator figures
MIN_BOOTSTRAP = 20


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


def _setup_sums(unit_setup: np.ndarray, columns: np.ndarray, n_setups: int) -> np.ndarray:
    return np.column_stack([np.bincount(unit_setup, col, minlength=n_setups) for col in columns.T])


class _Resampler:
    """Everything the figures need, summed per setup so that a replicate is a dot product
    (alpha, mean SD, split-half) or a reweighting of rows (the per-annotator figures)."""

    def __init__(self, table: RatingTable, ann: AnnotatorScores, seed: int):
        uc = unit_counts(table)
        self.n_setups = int(uc.unit_setup.max()) + 1
        self.alpha = _setup_sums(uc.unit_setup, _alpha_parts(uc), self.n_setups)
        sds = sample_sds(uc)
        has_sd = ~np.isnan(sds)
        self.sd = _setup_sums(
            uc.unit_setup, np.column_stack([np.nan_to_num(sds), has_sd]), self.n_setups
        )
        a, b, ok = split_halves(table, seed)
        a, b = np.where(ok, a, 0.0), np.where(ok, b, 0.0)
        self.halves = _setup_sums(
            uc.unit_setup, np.column_stack([ok, a, b, a * a, b * b, a * b]), self.n_setups
        )
        self.row_setup = table.setup[ann.rows]

    def fixed(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        """Alpha, mean SD and split-half for a (replicates x setups) weight matrix."""
        alpha = _alpha_from_parts(weights @ self.alpha)
        sd = weights @ self.sd
        n, sa, sb, saa, sbb, sab = (weights @ self.halves).T
        cov, va, vb = n * sab - sa * sb, n * saa - sa * sa, n * sbb - sb * sb
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where((va > 0) & (vb > 0), cov / np.sqrt(va * vb), np.nan)
            return {
                "alpha": alpha,
                "mean_sd": np.where(sd[:, 1] > 0, sd[:, 0] / sd[:, 1], np.nan),
                "split_half": 2 * r / (1 + r),
            }


def agreement(
    table: RatingTable, *, groups_known: bool, n_boot: int = 1000, seed: int = 0
) -> Agreement:
    """All agreement figures with percentile bootstrap 95% intervals over setups (seeded).

    Alpha, mean SD and split-half get ``n_boot`` replicates; the per-annotator figures
    (upper bound, LOO Spearman) get fewer on large data (``n_boot_annotators``).
    """
    ann = annotator_scores(table, groups_known=groups_known)
    ok_groups = _ok_groups(ann) if groups_known else None
    values = {
        "alpha": krippendorff_alpha(table),
        "mean_sd": mean_sd(table),
        "split_half": split_half(table, seed)["corrected"],
        **upper_bound_figures(ann, ok_groups),
    }
    loo = loo_spearman(ann)
    values["loo_spearman"] = loo["mean"]
    intervals, n_annotator = {}, 0
    n_setups = int(len(np.unique(table.setup)))
    if n_boot > 0 and len(table):
        res = _Resampler(table, ann, seed)
        reps = _replicate(res, ann, ok_groups, n_boot, seed)
        intervals = {key: _percentile(reps[key]) for key in values if key in reps}
        n_annotator = _replicates(n_boot, len(ann.rows))
    return Agreement(
        values={k: (float("nan") if v is None else float(v)) for k, v in values.items()},
        intervals=intervals,
        n_ratings=len(table),
        n_samples=int(len(np.unique(table.sample))),
        n_setups=n_setups,
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


def _setup_weights(rng, n_setups: int, n_boot: int) -> np.ndarray:
    """Each row: how often each setup was drawn in one replicate (with replacement)."""
    draws = rng.integers(0, n_setups, (n_boot, n_setups))
    offsets = (np.arange(n_boot) * n_setups)[:, None]
    flat = np.bincount((draws + offsets).ravel(), minlength=n_boot * n_setups)
    return flat.reshape(n_boot, n_setups).astype(float)


def _replicate(res: _Resampler, ann, ok_groups, n_boot: int, seed: int) -> dict[str, list]:
    """All replicates of the cheap figures; the first ``_replicates(...)`` of them also
    for the per-annotator figures (the same draws, so the figures stay paired)."""
    rng = np.random.default_rng(seed)
    n_annotator = _replicates(n_boot, len(res.row_setup))
    reps: dict[str, list] = {}
    for start in range(0, n_boot, 100):
        weights = _setup_weights(rng, res.n_setups, min(100, n_boot - start))
        for key, values in res.fixed(weights).items():
            reps.setdefault(key, []).extend(values.tolist())
        for w in weights[: max(0, n_annotator - start)]:
            figures = upper_bound_figures(ann, ok_groups, w[res.row_setup])
            figures["loo_spearman"] = figures["average_spearman"]
            for key, value in figures.items():
                reps.setdefault(key, []).append(value)
    return reps


def _percentile(values: list[float]) -> tuple[float, float]:
    arr = np.asarray(values, dtype=float)
    arr = arr[~np.isnan(arr)]
    if not len(arr):
        return (float("nan"), float("nan"))
    low, high = np.percentile(arr, [2.5, 97.5])
    return (float(low), float(high))
