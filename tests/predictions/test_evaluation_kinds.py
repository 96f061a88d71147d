"""Scores for relatedness and sense choice (pure, no database)."""

from __future__ import annotations

import pytest

from predictions.evaluation_kinds import (
    macro_f1,
    relatedness_scores,
    residuals_by_group,
    sense_choice_scores,
)


def test_macro_f1_is_sklearns_macro_f1_over_the_gold_classes():
    # scikit-learn is optional (requirements-ml.txt); the other tests here need none of it.
    metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn is not installed")
    gold = ["a", "a", "b", "b", "b", "a"]
    pred = ["a", "b", "b", "b", "a", "a"]
    assert macro_f1(gold, pred) == pytest.approx(metrics.f1_score(gold, pred, average="macro"))


def test_sense_choice_reports_accuracy_and_fools_macro_f1_per_set():
    gold = [0, 1, 0, 1, 0, 1, 0, 1]
    pred = [0, 1, 0, 1, 1, 1, 1, 1]
    words = ["bank", "bank", "bat", "bat", "bank", "bank", "bat", "bat"]
    sets = ["1", "1", "1", "1", "3", "3", "3", "3"]
    found = sense_choice_scores(gold, pred, words, sets)
    assert found["per_set"]["1"] == {"accuracy": 1.0, "correct": 4, "total": 4, "macro_f1": 1.0}
    three = found["per_set"]["3"]
    assert three["accuracy"] == 0.5
    # per word: F1 of sense 0 is 0, of sense 1 is 2/3 -> 1/3 each word -> 1/3 for the set
    assert three["macro_f1"] == pytest.approx(1 / 3)
    assert found["accuracy"] == 0.75


def test_relatedness_reports_spearman_of_distances_against_means():
    found = relatedness_scores([0.1, 0.2, 0.3, 0.4], [4.0, 3.0, 2.5, 0.5])
    assert found == {"spearman": pytest.approx(-1.0), "total": 4}


def test_residuals_are_summarised_per_group():
    y = [1.0, 2.0, 3.0, 4.0, 5.0, 7.0]
    x = [[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]]
    groups = ["a", "a", "a", "b", "b", "b"]
    found = residuals_by_group(y, x, groups)
    assert found["a"]["n"] == 3 and found["b"]["n"] == 3
    assert found["a"]["mean"] + found["b"]["mean"] == pytest.approx(0.0, abs=1e-9)
