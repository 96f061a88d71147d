"""Run comparisons: open/ended split, label distributions, bootstrap and paired tests."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import wilcoxon

from predictions.evaluation import parse_predictions, parse_reference, score
from tests.conftest import CONFORMANCE
from tests.predictions import comparison_oracle as comparison


def dev_reference():
    with open(CONFORMANCE / "dev_solution.jsonl", encoding="utf-8") as handle:
        return parse_reference(handle)


def test_it_splits_official_scores_into_open_and_ended_parts_that_sum_to_the_whole():
    ref = dev_reference()
    with open(CONFORMANCE / "pred_random.jsonl", encoding="utf-8") as handle:
        preds = parse_predictions(handle, list(ref))
    ids = list(ref)
    ended = [int(i) % 3 != 0 for i in ids]  # any partition must add up
    parts = comparison.split_by_ending([ref[i] for i in ids], [preds[i] for i in ids], ended)
    expected = json.loads((CONFORMANCE / "expected.json").read_text())["pred_random.jsonl"]
    assert parts["all"].correct == expected["correct"] == 263
    assert parts["all"] == score(ref, preds)
    assert parts["open"].correct + parts["ended"].correct == parts["all"].correct
    assert parts["open"].total + parts["ended"].total == parts["all"].total == 588


def test_it_rounds_half_up_for_label_distributions():
    assert [comparison.round_label(v) for v in (1.49, 1.5, 2.5, 4.6, 0.2, 7)] == [1, 2, 3, 5, 1, 5]
    assert comparison.label_distribution([1, 2, 2, 2.5, 5]) == [0.2, 0.4, 0.2, 0.0, 0.2]
    assert comparison.human_distribution([[1, 2], [4, 5, 5]]) == [0, 1.0 / 2, 0, 0, 1.0 / 2]


def test_run_intervals_resample_setups_and_contain_the_point_estimate():
    rng = np.random.default_rng(0)
    labels = [rng.integers(1, 6, 5).tolist() for _ in range(120)]
    preds = [float(np.mean(lab)) + rng.normal(0, 0.8) for lab in labels]
    setups = [i // 6 for i in range(120)]
    ci = comparison.run_intervals(labels, preds, setups, n_boot=300, seed=1)
    whole = comparison.score_lists(labels, preds)
    assert ci["accuracy"][0] < whole.accuracy < ci["accuracy"][1]
    assert ci["spearman"][0] < whole.spearman < ci["spearman"][1]
    assert ci == comparison.run_intervals(labels, preds, setups, n_boot=300, seed=1)


def test_paired_comparison_reports_differences_and_a_wilcoxon_test_on_errors():
    rng = np.random.default_rng(2)
    labels = [rng.integers(1, 6, 5).tolist() for _ in range(90)]
    good = [float(np.mean(lab)) for lab in labels]
    bad = [float(rng.integers(1, 6)) for _ in labels]
    setups = [i // 6 for i in range(90)]
    result = comparison.paired_comparison(labels, good, bad, setups, n_boot=300)
    assert result.accuracy_a == 1.0
    assert result.accuracy_diff == pytest.approx(result.accuracy_a - result.accuracy_b)
    assert result.accuracy_diff_ci[0] > 0  # the perfect run is better beyond doubt
    errors_good = np.abs(np.array(good) - np.array(good))
    errors_bad = np.abs(np.array(bad) - np.array(good))
    assert result.wilcoxon_p == pytest.approx(wilcoxon(errors_good, errors_bad).pvalue)
    assert result.wilcoxon_p < 0.001


def test_paired_comparison_of_a_run_with_itself_has_no_wilcoxon_test():
    labels = [[1, 2, 3], [4, 5, 5], [2, 2, 3], [1, 1, 2]]
    preds = [2.0, 4.0, 3.0, 1.0]
    result = comparison.paired_comparison(labels, preds, preds, [0, 0, 1, 1], n_boot=20)
    assert result.accuracy_diff == 0 and result.wilcoxon_p is None
