"""Split-half reliability: the mean over many random splits, a new split per replicate."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from scipy.stats import hypergeom

from annotations import metrics_bootstrap, metrics_splithalf
from annotations.metrics import RatingTable, unit_counts
from annotations.metrics_splithalf import half_sum_outcomes, reliability, split_sums

from .helpers import random_study


def by_subsets(values) -> dict[float, float]:
    """The distribution of the sum of a random ceil(n/2)-subset, by listing every subset."""
    half = (len(values) + 1) // 2
    found = Counter(round(sum(s), 9) for s in itertools.combinations(values, half))
    total = sum(found.values())
    return {key: count / total for key, count in found.items()}


@pytest.mark.parametrize(
    ("domain", "counts"),
    [
        ([1, 2, 3, 4, 5], [[2, 0, 1, 3, 0], [0, 0, 0, 0, 1], [1, 1, 1, 1, 1], [0, 4, 0, 0, 0]]),
        ([1, 2, 3, 4, 5], [[3, 0, 0, 0, 4], [0, 0, 5, 0, 6], [2, 2, 2, 2, 2]]),
        ([0.5, 1.25, 4.0], [[1, 2, 2], [0, 3, 0], [4, 0, 1]]),  # not whole numbers
    ],
)
def test_the_half_sum_distribution_of_each_case_equals_listing_every_subset(domain, counts):
    case, total, p = half_sum_outcomes(np.array(counts), np.array(domain, float))
    for k, row in enumerate(counts):
        got = {round(float(t), 9): float(q) for c, t, q in zip(case, total, p) if c == k}
        expected = by_subsets(np.repeat(domain, row).tolist())
        assert got.keys() == expected.keys()
        assert [got[key] for key in expected] == pytest.approx(list(expected.values()), abs=1e-12)


def test_drawn_splits_follow_the_exact_distribution_and_keep_each_samples_total():
    # one setup of one sample with ratings 1,1,2,4,5,5: half A holds 3 of them
    rows = [(0, r, v) for r, v in enumerate([1, 1, 2, 4, 5, 5])]
    uc = unit_counts(RatingTable.from_rows(rows))
    sums = split_sums(uc, 20_000, seed=1).sums[:, 0]
    n, a, b = sums[:, 0], sums[:, 1], sums[:, 2]
    assert (n == 1).all()
    assert a * 3 + b * 3 == pytest.approx(np.full(len(a), 18.0))
    seen = Counter(np.round(a * 3).astype(int).tolist())
    for total, p in by_subsets([1, 1, 2, 4, 5, 5]).items():
        assert seen[round(total)] / len(a) == pytest.approx(p, abs=0.015)


def test_a_splits_figure_is_the_spearman_brown_corrected_pearson_of_the_half_means():
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=40), rng.normal(size=40)
    b += a
    sums = [len(a), a.sum(), b.sum(), (a * a).sum(), (b * b).sum(), (a * b).sum()]
    r = np.corrcoef(a, b)[0, 1]
    assert reliability(np.array(sums)) == pytest.approx(2 * r / (1 + r), abs=1e-12)


def test_the_estimate_is_the_mean_over_many_seeded_splits():
    uc = unit_counts(RatingTable.from_rows(random_study(2), {s: s // 6 for s in range(60)}))
    figures = split_sums(uc, 200, seed=0).figures()
    assert len(set(np.round(figures, 12))) > 100  # the splits differ
    assert metrics_splithalf.split_half(uc, 200, seed=0) == pytest.approx(figures.mean())
    # the first splits do not depend on how many are drawn: page and JSON agree
    assert split_sums(uc, 7, seed=0).figures() == pytest.approx(figures[:7])
    result = metrics_bootstrap.agreement(
        RatingTable.from_rows(random_study(2), {s: s // 6 for s in range(60)}),
        groups_known=False,
        n_boot=0,
    )
    assert result.values["split_half"] == pytest.approx(figures.mean())
    assert result.split_half["splits"] == 200 and result.split_half["defined"] == 200
    assert result.split_half["sd"] == pytest.approx(figures.std(ddof=1))


def test_each_bootstrap_replicate_redraws_the_split():
    uc = unit_counts(RatingTable.from_rows(random_study(3), {s: s // 6 for s in range(60)}))
    splits = split_sums(uc, 50, seed=0)
    ones = np.ones((120, 10))  # replicates that draw every setup once: only the split varies
    replicates = splits.replicates(ones, first=0)
    figures = splits.figures()
    assert replicates[:50] == pytest.approx(figures)  # replicate k on split k
    assert replicates[50:100] == pytest.approx(figures)  # in turn when there are fewer splits
    assert splits.replicates(ones[:3], first=48) == pytest.approx(figures[[48, 49, 0]])
    weights = np.random.default_rng(0).integers(0, 3, (4, 10)).astype(float)
    for k, row in enumerate(weights):
        expected = reliability(row @ splits.sums[k])
        assert splits.replicates(weights, 0)[k] == pytest.approx(expected)


def test_the_bootstrap_replicates_take_the_estimates_splits_in_turn(monkeypatch):
    table = RatingTable.from_rows(random_study(4), {s: s // 6 for s in range(60)})
    uc = unit_counts(table)
    result = metrics_bootstrap.agreement(table, groups_known=False, n_boot=300)
    assert result.split_half["splits"] == 200
    monkeypatch.setattr(metrics_splithalf, "SPLIT_BUDGET", 60 * 30)  # 30 splits of 60 samples
    monkeypatch.setattr(metrics_splithalf, "MIN_SPLITS", 5)
    capped = metrics_bootstrap.agreement(table, groups_known=False, n_boot=300)
    assert capped.split_half["splits"] == 30
    assert capped.values["split_half"] == pytest.approx(split_sums(uc, 30).figures().mean())


def test_a_sample_with_thousands_of_ratings_gets_its_exact_distribution():
    # 1300 ratings, 600 of them 1 and 700 of them 3: half A (650) holds j ones, j hypergeometric
    case, total, p = half_sum_outcomes(np.array([[600, 0, 700, 0, 0]]), np.arange(1, 6.0))
    ones = (3 * 650 - total) / 2
    assert p.sum() == pytest.approx(1.0)
    assert p == pytest.approx(hypergeom(1300, 600, 650).pmf(ones), abs=1e-12)
