"""Per-annotator figures under bootstrap weights, against the official scorer on copies."""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from annotations import metrics, metrics_annotators, metrics_bootstrap
from annotations.metrics import RatingTable
from annotations.official import is_within_sd

from .helpers import official_per_rater, random_study


def study(seed: int, n_samples: int = 48, per_sample: int = 4, n_raters: int = 7):
    """Ratings as ``(sample, rater, score)``; six samples to a setup."""
    return random_study(seed, n_samples, per_sample, n_raters)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_setup_weights_count_as_copies_of_the_setups_ratings(seed):
    rows = study(seed)
    table = RatingTable.from_rows(rows, {s: s // 6 for s in range(48)})
    ann = metrics_annotators.annotator_scores(table, groups_known=False)
    weights = np.random.default_rng(seed).integers(0, 3, (5, 8)).astype(float)
    acc, rho, _ = ann.scores(weights)
    for row, w in enumerate(weights):
        official = official_per_rater(rows, lambda s, w=w: int(w[s // 6]))
        for unit, rater in enumerate(sorted(official)):
            score = official[rater]
            if score is None:
                assert np.isnan(acc[row, unit])
                continue
            assert acc[row, unit] == pytest.approx(score.accuracy, abs=1e-12)
            if score.total >= 3 and score.spearman is not None:
                assert rho[row, unit] == pytest.approx(score.spearman, abs=1e-9)
            else:
                assert np.isnan(rho[row, unit])


def test_a_row_of_ones_is_the_point_estimate():
    table = RatingTable.from_rows(study(4), {s: s // 6 for s in range(48)})
    ann = metrics_annotators.annotator_scores(table, groups_known=True)
    ok = np.ones(len(ann.group_samples), bool)
    point = metrics_annotators.upper_bound_figures(ann, ok)
    rows = metrics_annotators.upper_bound_figures(ann, ok, np.ones((2, ann.n_setups)))
    for key, value in point.items():
        assert rows[key] == pytest.approx([value, value], nan_ok=True)


def test_each_rating_is_judged_against_the_others_with_the_official_rule():
    rows = study(5, per_sample=5) + [(99, 0, 3)]  # a sample with one rating: no others
    table = RatingTable.from_rows(rows)
    by_sample: dict = {}
    for s, _, v in rows:
        by_sample.setdefault(s, []).append(v)
    expected = []
    for s, _, v in rows:
        others = list(by_sample[s])
        others.remove(v)
        expected.append(float(is_within_sd(v, others)) if others else np.nan)
    assert metrics.others_hits(table) == pytest.approx(expected, nan_ok=True)


def test_figures_do_not_depend_on_the_order_of_the_ratings():
    rows = study(6)
    setups = {s: s // 6 for s in range(48)}
    shuffled = [rows[i] for i in np.random.default_rng(0).permutation(len(rows))]
    first, again = (
        metrics_bootstrap.agreement(RatingTable.from_rows(r, setups), groups_known=True, n_boot=50)
        for r in (rows, shuffled)
    )
    assert first.values == pytest.approx(again.values, nan_ok=True)
    for key, interval in first.intervals.items():
        assert again.intervals[key] == pytest.approx(interval, nan_ok=True)


def test_no_sample_with_two_ratings_gives_undefined_figures_not_errors():
    table = RatingTable.from_rows([(s, s % 3, 1 + s % 5) for s in range(12)])
    result = metrics_bootstrap.agreement(table, groups_known=True, n_boot=20)
    assert np.isnan(result.values["average_accuracy"]) and result.loo["n"] == 0


def test_coverage_mean_weights_each_value_by_its_coverage_and_skips_undefined_ones():
    values = np.array([[0.5, 1.0, np.nan], [np.nan, np.nan, 0.2]])
    coverage = np.array([[12.0, 588.0, 100.0], [5.0, 5.0, 0.0]])
    got = metrics_annotators.coverage_mean(values, coverage)
    assert got[0] == pytest.approx((12 * 0.5 + 588 * 1.0) / 600)
    assert np.isnan(got[1])  # the only value covers nothing


def partial_rater_study():
    """Raters 0-3 rate all 40 samples; rater 4 only the first 4 (a low-coverage position)."""
    rng = np.random.default_rng(11)
    rows = [(s, r, int(rng.integers(1, 6))) for s in range(40) for r in range(4)]
    rows += [(s, 4, int(rng.integers(1, 6))) for s in range(4)]
    return rows


def test_average_annotator_figures_weight_annotators_by_the_samples_they_cover():
    rows = partial_rater_study()
    official = official_per_rater(rows)
    coverage = {r: 40 if r < 4 else 4 for r in official}
    table = RatingTable.from_rows(rows, {s: s // 4 for s in range(40)})
    result = metrics_bootstrap.agreement(table, groups_known=False, n_boot=0)

    def weighted(values):
        return sum(coverage[r] * values[r] for r in values) / sum(coverage[r] for r in values)

    accuracy = weighted({r: official[r].accuracy for r in official})
    # the pooled share of all ratings inside the others' band
    assert accuracy == pytest.approx(
        sum(official[r].correct for r in official) / sum(official[r].total for r in official)
    )
    assert result.values["average_accuracy"] == pytest.approx(accuracy, abs=1e-12)
    plain_accuracy = statistics.fmean(official[r].accuracy for r in official)
    assert abs(plain_accuracy - accuracy) > 1e-3  # the rule matters on this study
    spearman = weighted({r: official[r].spearman for r in official})
    assert result.values["average_spearman"] == pytest.approx(spearman, abs=1e-9)
    assert result.values["loo_spearman"] == result.values["average_spearman"]
    plain = statistics.fmean(official[r].spearman for r in official)
    assert result.loo["unweighted_mean"] == pytest.approx(plain, abs=1e-9)
    assert (result.loo["items_min"], result.loo["items_max"]) == (4, 40)


def test_replicates_weight_annotators_by_their_coverage_in_the_replicate():
    rows = partial_rater_study()
    table = RatingTable.from_rows(rows, {s: s // 4 for s in range(40)})
    ann = metrics_annotators.annotator_scores(table, groups_known=False)
    weights = np.random.default_rng(2).integers(0, 3, (6, 10)).astype(float)
    figures = metrics_annotators.upper_bound_figures(ann, None, weights)
    for row, w in enumerate(weights):
        official = official_per_rater(rows, lambda s, w=w: int(w[s // 4]))
        scored = {r: score for r, score in official.items() if score is not None}
        correct = sum(score.correct for score in scored.values())
        total = sum(score.total for score in scored.values())
        assert figures["average_accuracy"][row] == pytest.approx(correct / total, abs=1e-12)


def test_equal_coverage_gives_the_plain_mean():
    full = [(s, r, 1 + (s * k) % 5) for s in range(30) for r, k in enumerate((1, 2, 3))]
    table = RatingTable.from_rows(full)
    official = official_per_rater(full)
    result = metrics_bootstrap.agreement(table, groups_known=False, n_boot=0)
    plain = statistics.fmean(official[r].accuracy for r in official)
    assert result.values["average_accuracy"] == pytest.approx(plain, abs=1e-12)
