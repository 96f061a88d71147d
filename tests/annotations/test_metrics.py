"""Agreement statistics against hand computations and independent implementations."""

from __future__ import annotations

import statistics

import numpy as np
import pytest
from scipy.stats import spearmanr

from annotations import metrics, metrics_annotators, metrics_bootstrap, metrics_splithalf
from annotations.metrics import RatingTable

from .helpers import official_per_rater, random_study

# Four raters on five samples (one group); D disagrees with A, B and C everywhere but the last.
AGREE = [1, 1, 5, 5, 3]
DISAGREE = [5, 5, 1, 1, 3]


def one_dissenter() -> RatingTable:
    rows = [
        (f"s{i}", rater, scores[i])
        for rater, scores in (("A", AGREE), ("B", AGREE), ("C", AGREE), ("D", DISAGREE))
        for i in range(5)
    ]
    return RatingTable.from_rows(rows)


def test_it_matches_a_hand_computed_interval_alpha():
    # units {1,2} and {3,3}: D_o = 2/4, D_e = 22/12, alpha = 1 - 0.5/(22/12) = 8/11
    table = RatingTable.from_rows([("u1", "a", 1), ("u1", "b", 2), ("u2", "a", 3), ("u2", "b", 3)])
    assert metrics.krippendorff_alpha(table) == pytest.approx(8 / 11, abs=1e-12)


def test_it_gives_alpha_and_mean_sd_by_hand_when_one_annotator_disagrees_with_all():
    table = one_dissenter()
    # D_o = 4 units x 32 / 20 = 6.4; D_e = 2560 / (20 x 19); alpha = 1 - 0.95
    assert metrics.krippendorff_alpha(table) == pytest.approx(0.05, abs=1e-12)
    assert metrics.mean_sd(table) == pytest.approx(8 / 5)  # SDs 2, 2, 2, 2, 0


def test_it_scores_the_dissenter_against_the_others_with_the_official_rule():
    result = metrics_bootstrap.agreement(one_dissenter(), groups_known=True, n_boot=20)
    # A, B and C are always within the others' band, D only on the unanimous sample
    assert result.values["average_accuracy"] == pytest.approx((1 + 1 + 1 + 0.2) / 4)
    assert result.values["best_accuracy"] == pytest.approx(1.0)
    # ranks of A against the others' means correlate perfectly, D's perfectly negatively
    assert result.values["average_spearman"] == pytest.approx((1 + 1 + 1 - 1) / 4)
    assert result.values["best_spearman"] == pytest.approx(1.0)
    assert result.loo["min"] == pytest.approx(-1.0) and result.loo["max"] == pytest.approx(1.0)
    assert result.n_groups == 1


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_it_agrees_with_official_score_lists_per_annotator(seed):
    rows = random_study(seed)
    official = official_per_rater(rows)
    ann = metrics_annotators.annotator_scores(RatingTable.from_rows(rows), groups_known=False)
    acc, rho, _ = ann.scores()
    raters = sorted(official)
    assert acc == pytest.approx([official[r].accuracy for r in raters], abs=1e-12)
    expected = [np.nan if official[r].spearman is None else official[r].spearman for r in raters]
    assert rho == pytest.approx(expected, abs=1e-9, nan_ok=True)


def test_it_averages_the_best_annotator_of_each_group():
    # two batches, each rated by its own three raters; groups are found from the rater sets
    rows = []
    for batch, raters in ((0, "ABC"), (1, "DEF")):
        for i in range(6):
            sample = f"b{batch}-{i}"
            for k, rater in enumerate(raters):
                rows.append((sample, rater, 1 + (i + k * batch) % 5))
    official = official_per_rater(rows)
    result = metrics_bootstrap.agreement(RatingTable.from_rows(rows), groups_known=True, n_boot=10)
    best = [max(official[r].accuracy for r in group) for group in ("ABC", "DEF")]
    mean = statistics.mean(official[r].accuracy for r in "ABCDEF")
    assert result.n_groups == 2
    assert result.values["best_accuracy"] == pytest.approx(statistics.mean(best))
    assert result.values["average_accuracy"] == pytest.approx(mean)


def test_it_leaves_best_per_group_out_when_groups_are_unknown():
    result = metrics_bootstrap.agreement(RatingTable.from_rows(random_study(4)), groups_known=False)
    assert "best_accuracy" not in result.values
    assert result.values["loo_spearman"] == result.values["average_spearman"]


def test_weighted_ranks_equal_scipy_on_duplicated_rows():
    rng = np.random.default_rng(7)
    x = rng.integers(1, 6, 40).astype(float)
    y = rng.integers(1, 6, 40).astype(float)
    w = rng.integers(0, 3, 40).astype(float)
    group = np.zeros(40, np.int64)
    rx = metrics.GroupedRanks(group, x).ranks(w)
    ry = metrics.GroupedRanks(group, y).ranks(w)
    rho = metrics.grouped_pearson(group, rx, ry, w, 1)[0]
    expected = spearmanr(np.repeat(x, w.astype(int)), np.repeat(y, w.astype(int))).statistic
    assert rho == pytest.approx(expected, abs=1e-12)


def test_the_closed_form_alpha_used_by_the_bootstrap_equals_the_package():
    table = RatingTable.from_rows(random_study(5))
    parts = metrics._alpha_parts(metrics.unit_counts(table)).sum(axis=0)
    closed = metrics._alpha_from_parts(parts[None, :])[0]
    assert closed == pytest.approx(metrics.krippendorff_alpha(table), abs=1e-12)


def test_split_half_is_spearman_brown_corrected():
    # every rater gives the same score per sample: halves agree perfectly
    rows = [(s, r, 1 + s % 5) for s in range(20) for r in range(4)]
    table = RatingTable.from_rows(rows)
    assert metrics_splithalf.split_half(metrics.unit_counts(table)) == pytest.approx(1.0)
    assert metrics_splithalf.spearman_brown(0.5) == pytest.approx(2 / 3)


def test_bootstrap_intervals_resample_setups_and_are_seeded():
    rows = random_study(6)
    setups = {s: s // 6 for s in range(60)}
    table = RatingTable.from_rows(rows, setups)
    first = metrics_bootstrap.agreement(table, groups_known=False, n_boot=200, seed=3)
    again = metrics_bootstrap.agreement(table, groups_known=False, n_boot=200, seed=3)
    assert first.intervals == again.intervals
    assert first.n_setups == 10
    low, high = first.intervals["alpha"]
    assert low < first.values["alpha"] < high
    low, high = first.intervals["mean_sd"]
    assert low < first.values["mean_sd"] < high


def test_intervals_report_how_many_replicates_defined_each_figure():
    # setup 0 is unanimous; a replicate that draws only setup 0 (about 1 in 27 of them)
    # has no variation at all, so alpha and split-half are undefined there
    rows = [(s, r, 3) for s in range(6) for r in range(4)]
    rng = np.random.default_rng(5)
    rows += [(s, r, int(rng.integers(1, 6))) for s in range(6, 18) for r in range(4)]
    table = RatingTable.from_rows(rows, {s: s // 6 for s in range(18)})
    result = metrics_bootstrap.agreement(table, groups_known=False, n_boot=1000, seed=1)
    assert result.drawn["alpha"] == 1000 and result.drawn["mean_sd"] == 1000
    assert 0 < 1000 - result.defined["alpha"] < 100
    assert result.defined["mean_sd"] == 1000  # an SD is defined on any setup
    assert result.defined["split_half"] < 1000
    for key in ("average_accuracy", "average_spearman", "loo_spearman"):
        assert result.defined[key] <= result.drawn[key] == result.n_boot_annotators


def test_the_interval_is_taken_over_the_defined_replicates_only():
    interval, defined = metrics_bootstrap._percentile([np.nan] * 3 + list(range(101)))
    assert defined == 101 and interval == pytest.approx((2.5, 97.5))
    assert metrics_bootstrap._percentile([np.nan, np.nan])[1] == 0
