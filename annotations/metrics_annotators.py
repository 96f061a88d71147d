"""Each annotator against the others: the human upper bound and leave-one-out Spearman.

A pure module (numpy and scipy.sparse, no Django).

* The human upper bound follows the AmbiStory paper (section 5.1: "evaluating each annotator
  against the other annotators who received the same sample ... averaging the scores of the
  highest-scoring human in each group"): each annotator's rating of a sample is scored
  against the *other* annotators of that sample with the official rule (judged in
  :func:`annotations.metrics.rating_cases`) and the official Spearman (rank correlation with
  the others' means). Annotators are scored per group: the design's groups where the table
  names them (``RatingTable.group``: a list-design study's lists, the paper's groups of five
  annotators sharing 30 samples), else the samples rated by the same set of raters. An
  annotator *unit* is a rater within one group (a rater, when groups are unknown). The
  upper bound (the paper's figure) averages the best unit of each group; the *average
  annotator* (not an upper bound: what a typical single annotator achieves) averages all
  units. :func:`group_figures` gives both, and leave-one-out, for every group.
* Leave-one-annotator-out Spearman follows the RAW-C paper: each annotator's ratings against
  the mean of the others on the items they rated, averaged over annotators.

**Weighting rule.** The average-annotator figures and the leave-one-out mean weight each
unit by its *coverage*, the number of samples it rated that have another rating
(:func:`coverage_mean`). An equal-weight mean lets a unit with a handful of samples count
as much as one with hundreds: on the dev set the 6th import position (the 6th rating that
only 12 of 588 samples have) weighs 1/6 and lifts the equal-weight average-annotator
accuracy from 0.694 (without it) to 0.717 and the Spearman from 0.629 to 0.681; weighted
by coverage they are 0.694 and 0.631. Weighting by coverage was chosen over a
minimum-coverage cut-off because it needs no threshold to pick and drops no data; it makes the
average-annotator accuracy the share of all ratings inside the others' band (the paper's
per-rating rule, pooled), it weights a Spearman by its items, close to inverse-variance
weighting (the variance of Fisher's z is 1 / (n - 3)), and where every unit covers the same
number of samples (a study whose participants each rate one batch) it equals the plain
mean. The best-per-group variant keeps the paper's rule: the mean over groups of each
group's best unit, groups of at least ``MIN_GROUP_SAMPLES`` samples.

The figures are computed for a matrix of *setup weights* (one row per bootstrap replicate,
one column per setup: how often the setup was drawn), so the point estimate is the row of
ones and a replicate needs no copy of the ratings; a unit's coverage in a replicate counts
its samples as often as their setups were drawn. Everything that depends on the weights
is linear in them at the level of *runs* (the ratings of one unit with one value), so it is
a sparse matrix product; the weighted average ranks are cumulative sums over runs. A rating
of weight ``w`` counts as ``w`` copies, ties get the average rank, as scipy's Spearman does.
All sums are of integers and halves, so they are exact and the figures do not depend on
the order of the ratings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from scipy import sparse

from .metrics import (
    MIN_SPEARMAN_ITEMS,
    RatingTable,
    compact,
    rating_cases,
    sample_groups,
    unit_counts,
)

CHUNK_CELLS = 4_000_000  # (run x replicate) cells held at once
MAX_CHUNK = 32  # replicates at once: wider blocks make the cumulative sums slower


def _starts(sorted_keys: np.ndarray) -> np.ndarray:
    """Where each run of equal values of a sorted array starts."""
    if not len(sorted_keys):
        return np.zeros(0, np.int64)
    return np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])


def _setup_matrix(index, n_rows, setup, n_setups, values=None) -> sparse.csr_matrix:
    """``m[i, s]``: how many rows (or the sum of ``values``) of index ``i`` lie in setup ``s``."""
    data = np.ones(len(index)) if values is None else values
    return sparse.csr_matrix((data, (index, setup)), shape=(n_rows, n_setups))


@dataclass(frozen=True)
class Runs:
    """Ratings grouped by (unit, value code), runs ordered by unit, then by value."""

    of_row: np.ndarray  # run of each rating
    unit: np.ndarray  # unit of each run
    unit_start: np.ndarray  # first run of each unit (every unit has one)

    @classmethod
    def build(cls, unit: np.ndarray, code: np.ndarray, n_codes: int) -> Runs:
        distinct, of_row = compact(unit * n_codes + code)
        run_unit = distinct // n_codes
        return cls(of_row, run_unit, _starts(run_unit))

    def __len__(self) -> int:
        return len(self.unit)

    def ranks(self, run_weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Average rank of each run within its unit, and per unit the weighted sum of
        squared ranks, per replicate column of ``run_weights``: the weight before the run
        in its unit, plus (its weight + 1) / 2."""
        ranks = np.cumsum(run_weights, axis=0)
        ends = ranks[np.r_[self.unit_start[1:], len(ranks)] - 1]
        before = np.vstack([np.zeros_like(ends[:1]), ends[:-1]]) - 0.5  # per unit
        ranks -= np.repeat(before, np.diff(np.r_[self.unit_start, len(ranks)]), axis=0)
        ranks -= 0.5 * run_weights
        squares = run_weights * ranks
        squares *= ranks
        return ranks, self.per_unit(squares)

    def per_unit(self, values: np.ndarray) -> np.ndarray:
        return np.add.reduceat(values, self.unit_start, axis=0)


class UnitScores(NamedTuple):
    """Per annotator unit (per replicate row, under setup weights)."""

    accuracy: np.ndarray  # share of its ratings inside the others' band
    spearman: np.ndarray  # rank correlation with the others' means (NaN where undefined)
    coverage: np.ndarray  # samples rated that have another rating (weighted)


@dataclass
class AnnotatorScores:
    """The official metrics of every annotator unit against the others of each sample."""

    unit_group: np.ndarray  # group of each annotator unit
    group_samples: np.ndarray  # samples rated in each group
    n_units: int
    n_setups: int
    n_rows: int  # ratings that have another rating of their sample
    hits: sparse.csr_matrix  # (unit x setup) ratings inside the others' band
    x: Runs  # the unit's own ratings
    y: Runs  # the others' means
    x_weights: sparse.csr_matrix  # (x run x setup) ratings
    y_weights: sparse.csr_matrix  # (y run x setup) ratings
    pairs: sparse.csr_matrix  # (x run, y run) pairs of ratings, per setup
    pair_x: np.ndarray  # x run of each pair
    pairs_per_y: np.ndarray  # pairs of each y run (pairs are in y-run order)
    pair_unit_start: np.ndarray
    _point: UnitScores | None = field(default=None, init=False, repr=False)

    def scores(self, setup_weights: np.ndarray | None = None) -> UnitScores:
        """Accuracy, Spearman and coverage per unit; for a ``(replicates x setups)`` weight
        matrix, one row per replicate (all weights 1, a single row, when omitted)."""
        single = setup_weights is None
        if single and self._point is not None:
            return self._point  # the point estimate serves several figures
        weights = (
            np.ones((1, self.n_setups)) if setup_weights is None else np.atleast_2d(setup_weights)
        )
        if not self.n_units:
            empty = np.zeros((len(weights), 0))
            return UnitScores(*([empty[0]] * 3 if single else [empty] * 3))
        step = max(1, min(MAX_CHUNK, CHUNK_CELLS // max(self.pairs.shape[0], 1)))
        parts = [
            self._chunk(np.ascontiguousarray(weights[start : start + step].T, float))
            for start in range(0, len(weights), step)
        ]
        found = UnitScores(*(np.vstack([p[k].T for p in parts]) for k in range(3)))
        if single:
            self._point = UnitScores(*(column[0] for column in found))
            return self._point
        return found

    def _chunk(self, wt: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Columns of setup weights ``wt`` (setups x replicates) -> (units x replicates)."""
        wx, wy = self.x_weights @ wt, self.y_weights @ wt
        rx, sxx = self.x.ranks(wx)
        ry, syy = self.y.ranks(wy)
        n = self.x.per_unit(wx)
        cross = self.pairs @ wt
        cross *= rx[self.pair_x]
        cross *= np.repeat(ry, self.pairs_per_y, axis=0)  # pairs are in y-run order
        sxy = np.add.reduceat(cross, self.pair_unit_start, axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            acc = np.where(n > 0, (self.hits @ wt) / n, np.nan)
        return acc, _pearson(n, sxx, syy, sxy), n


def _pearson(n, sxx, syy, sxy) -> np.ndarray:
    """Pearson r of weighted ranks from their sums (total weight ``n``). The weighted mean
    rank of a unit is ``(n + 1) / 2`` whatever the ties, so only the squares and the cross
    products are summed; undefined (NaN) for fewer than three items or constant ranks."""
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_sq = ((n + 1) / 2) ** 2
        vx, vy, cov = sxx / n - mean_sq, syy / n - mean_sq, sxy / n - mean_sq
        ok = (n >= MIN_SPEARMAN_ITEMS) & (vx > 1e-12) & (vy > 1e-12)
        return np.where(ok, cov / np.sqrt(np.where(ok, vx * vy, 1)), np.nan)


def spearman_per_unit(unit: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho of ``x`` against ``y`` within each unit ``0..k-1`` (every unit has a
    row), from integer rank codes of ``x`` and ``y`` (equal values, equal codes)."""
    x_runs = Runs.build(unit, x, int(x.max()) + 1)
    y_runs = Runs.build(unit, y, int(y.max()) + 1)
    wx = np.bincount(x_runs.of_row, minlength=len(x_runs)).astype(float)[:, None]
    wy = np.bincount(y_runs.of_row, minlength=len(y_runs)).astype(float)[:, None]
    rx, sxx = x_runs.ranks(wx)
    ry, syy = y_runs.ranks(wy)
    sxy = np.bincount(unit, rx[x_runs.of_row, 0] * ry[y_runs.of_row, 0])[:, None]
    return _pearson(x_runs.per_unit(wx), sxx, syy, sxy)[:, 0]


def annotator_scores(table: RatingTable, *, groups_known: bool, uc=None) -> AnnotatorScores:
    """Score every rating against the other ratings of its sample, per annotator unit.

    With ``groups_known`` an annotator unit is a rater within one group (the paper's
    groups); otherwise (imported data: raters are import positions, not people) a unit is
    a rater and all samples form one group.
    """
    uc = uc if uc is not None else unit_counts(table)
    cases = rating_cases(table, uc)
    n_per_sample = np.bincount(table.sample)
    rows = np.flatnonzero(n_per_sample[table.sample] >= 2)
    group = rating_groups(table, groups_known=groups_known)
    n_raters = int(table.rater.max()) + 1 if len(table) else 1
    unit_values, unit = _units(group[rows], table.rater[rows], n_raters)
    n_units, n_setups = len(unit_values), int(table.setup.max()) + 1 if len(table) else 0
    setup, n_x = table.setup[rows], len(uc.domain)
    x = Runs.build(unit, cases.value[rows], n_x)
    y = Runs.build(unit, cases.others_rank[rows], cases.n_others_ranks)
    distinct, pair_of_row = compact(y.of_row * n_x + cases.value[rows])
    pair_y = distinct // n_x
    pair_x = np.empty(len(distinct), np.int64)
    pair_x[pair_of_row] = x.of_row
    pair_unit = y.unit[pair_y]
    return AnnotatorScores(
        unit_group=unit_values // n_raters,
        group_samples=_group_samples(group, table.sample, len(n_per_sample)),
        n_units=n_units,
        n_setups=n_setups,
        n_rows=len(rows),
        hits=_setup_matrix(unit, n_units, setup, n_setups, cases.hits[rows]),
        x=x,
        y=y,
        x_weights=_setup_matrix(x.of_row, len(x), setup, n_setups),
        y_weights=_setup_matrix(y.of_row, len(y), setup, n_setups),
        pairs=_setup_matrix(pair_of_row, len(distinct), setup, n_setups),
        pair_x=pair_x,
        pairs_per_y=np.bincount(pair_y, minlength=len(y)),
        pair_unit_start=_starts(pair_unit),
    )


def rating_groups(table: RatingTable, *, groups_known: bool) -> np.ndarray:
    """The annotator group of each rating: the design's (``table.group``) where the table
    names it, else the group of samples rated by the same set of raters; one group when
    groups are unknown (imported raters)."""
    if not groups_known:
        return np.zeros(len(table), np.int64)
    if table.group is not None:
        return np.asarray(table.group, np.int64)
    return sample_groups(table)[table.sample] if len(table) else np.zeros(0, np.int64)


def _group_samples(group: np.ndarray, sample: np.ndarray, n_samples: int) -> np.ndarray:
    """How many distinct samples were rated in each group."""
    if not len(group):
        return np.zeros(0, np.int64)
    distinct, _ = compact(group * n_samples + sample)
    return np.bincount(distinct // n_samples)


def _units(group: np.ndarray, rater: np.ndarray, n_raters: int):
    """Annotator units (``group * n_raters + rater``, ascending) and each rating's unit."""
    group_of = np.zeros(n_raters, np.int64)
    group_of[rater] = group
    if not np.array_equal(group_of[rater], group):  # a rater in several groups
        return compact(group * n_raters + rater)
    raters = np.flatnonzero(np.bincount(rater, minlength=n_raters))
    order = raters[np.argsort(group_of[raters], kind="stable")]
    unit_of = np.zeros(n_raters, np.int64)
    unit_of[order] = np.arange(len(order))
    return group_of[order] * n_raters + order, unit_of[rater]


def group_best(values: np.ndarray, unit_group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The groups that have units (ascending codes) and, per row of ``values`` (replicates
    x units), each group's best unit: the paper's "highest-scoring human in each group"
    (units with no value are skipped; NaN for a group without one)."""
    values = np.atleast_2d(values)
    order = np.argsort(unit_group, kind="stable")
    groups = unit_group[order]
    start = _starts(groups)
    if not len(start):
        return groups[start], np.zeros((len(values), 0))
    with np.errstate(invalid="ignore"):
        return groups[start], np.fmax.reduceat(values[:, order], start, axis=1)


def group_mean(
    values: np.ndarray, coverage: np.ndarray, unit_group: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The groups that have units and, per row, each group's mean over its units under the
    weighting rule (:func:`coverage_mean`): the group's average annotator."""
    values, coverage = np.atleast_2d(values), np.atleast_2d(coverage)
    order = np.argsort(unit_group, kind="stable")
    groups = unit_group[order]
    start = _starts(groups)
    if not len(start):
        return groups[start], np.zeros((len(values), 0))
    weighted, total = (
        np.add.reduceat(part[:, order], start, axis=1) for part in _coverage_parts(values, coverage)
    )
    return groups[start], _ratio(weighted, total)


def _best_per_group(values: np.ndarray, unit_group: np.ndarray, ok_groups: np.ndarray):
    """Per row of ``values`` (replicates x units): the mean over usable groups of the
    group's best unit (units with no value are skipped, and so are groups without one)."""
    if not values.shape[1]:
        return np.full(len(values), np.nan)
    groups, best = group_best(values, unit_group)
    best = best[:, ok_groups[groups]]
    return coverage_mean(best, np.ones_like(best))


def coverage_mean(values: np.ndarray, coverage: np.ndarray) -> np.ndarray:
    """Per row, the mean of the finite values, each weighted by its coverage (NaN for a
    row without any): the module's weighting rule."""
    values, coverage = np.atleast_2d(values), np.atleast_2d(coverage)
    weighted, total = _coverage_parts(values, coverage)
    return _ratio(weighted.sum(axis=1), total.sum(axis=1))


def _coverage_parts(values: np.ndarray, coverage: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The weighting rule's parts per value: ``value x coverage`` and ``coverage`` where the
    value is finite and the coverage positive, 0 elsewhere (sum each, then ``_ratio``)."""
    usable = np.isfinite(values) & (coverage > 0)
    return np.where(usable, values * coverage, 0.0), np.where(usable, coverage, 0.0)


def _ratio(weighted: np.ndarray, total: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, weighted / total, np.nan)


def upper_bound_figures(
    ann: AnnotatorScores, ok_groups: np.ndarray | None, weights: np.ndarray | None = None
) -> dict[str, Any]:
    """The human upper bound ``best_*``, the mean over groups of the group's best unit (each
    metric's best chosen separately), and the average annotator ``average_*`` (no upper
    bound) over all annotator units weighted by coverage. Floats for the point estimate;
    one value per row of a setup weight matrix otherwise."""
    acc, rho, coverage = (np.atleast_2d(v) for v in ann.scores(weights))
    out: dict[str, np.ndarray | float] = {
        "average_accuracy": coverage_mean(acc, coverage),
        "average_spearman": coverage_mean(rho, coverage),
    }
    if ok_groups is not None:
        out["best_accuracy"] = _best_per_group(acc, ann.unit_group, ok_groups)
        out["best_spearman"] = _best_per_group(rho, ann.unit_group, ok_groups)
    return {k: float(np.asarray(v)[0]) for k, v in out.items()} if weights is None else out


def loo_spearman(ann: AnnotatorScores) -> dict[str, float]:
    """RAW-C's leave-one-annotator-out agreement: per annotator, Spearman between their
    ratings and the others' mean on the same items. ``mean`` weights each annotator by
    coverage (the rule above; ``unweighted_mean`` for comparison); median, min and max are
    over annotators; ``items_min``/``items_max`` the least and most samples one covers."""
    scores = ann.scores()
    usable = np.isfinite(scores.spearman)
    rho, coverage = scores.spearman[usable], scores.coverage[usable]
    if not len(rho):
        nan = float("nan")
        return {
            "mean": nan,
            "unweighted_mean": nan,
            "median": nan,
            "min": nan,
            "max": nan,
            "n": 0,
            "items_min": 0,
            "items_max": 0,
        }
    return {
        "mean": float(coverage_mean(rho, coverage)[0]),
        "unweighted_mean": float(rho.mean()),
        "median": float(np.median(rho)),
        "min": float(rho.min()),
        "max": float(rho.max()),
        "n": int(len(rho)),
        "items_min": int(coverage.min()),
        "items_max": int(coverage.max()),
    }


@dataclass(frozen=True)
class GroupFigures:
    """The per-annotator figures of every group, one entry per group (ascending codes).

    ``best_*`` is the group's highest-scoring annotator (the upper bound's part),
    ``average_*`` its average annotator under the weighting rule; the group's
    leave-one-annotator-out Spearman is ``average_spearman`` (the same rule: each annotator
    against the others' mean, weighted by coverage). ``usable`` marks the groups that count
    towards the upper bound (``ok_groups``)."""

    group: np.ndarray
    annotators: np.ndarray  # units with ratings that have another rating
    samples: np.ndarray  # distinct samples rated in the group
    usable: np.ndarray
    best_accuracy: np.ndarray
    best_spearman: np.ndarray
    average_accuracy: np.ndarray
    average_spearman: np.ndarray

    def rows(self, *, usable_only: bool = False) -> list[dict[str, Any]]:
        """One plain dict per group (NaN as None), for pages and JSON; with
        ``usable_only`` only the groups that count towards the upper bound."""
        names = [f for f in self.__dataclass_fields__]
        out = []
        for k in np.flatnonzero(self.usable) if usable_only else range(len(self.group)):
            row: dict[str, Any] = {}
            for name in names:
                value = getattr(self, name)[k].item()
                row[name] = None if isinstance(value, float) and np.isnan(value) else value
            out.append(row)
        return out


def group_figures(ann: AnnotatorScores, ok_groups: np.ndarray | None = None) -> GroupFigures:
    """Best and average annotator (and so leave-one-out) of every group, point estimates;
    ``ok_groups`` (indexed by group code) marks the usable ones (all, when omitted)."""
    acc, rho, coverage = ann.scores()
    groups, best_acc = group_best(acc, ann.unit_group)
    _, best_rho = group_best(rho, ann.unit_group)
    _, mean_acc = group_mean(acc, coverage, ann.unit_group)
    _, mean_rho = group_mean(rho, coverage, ann.unit_group)
    usable = np.ones(len(groups), bool) if ok_groups is None else ok_groups[groups]
    return GroupFigures(
        group=groups,
        annotators=np.bincount(ann.unit_group, minlength=int(groups.max(initial=-1)) + 1)[groups],
        samples=ann.group_samples[groups],
        usable=usable,
        best_accuracy=best_acc[0],
        best_spearman=best_rho[0],
        average_accuracy=mean_acc[0],
        average_spearman=mean_rho[0],
    )
