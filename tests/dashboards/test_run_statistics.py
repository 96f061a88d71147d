"""The leaderboard's array scoring gives exactly the official scorer's and comparison's figures."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dashboards import run_statistics
from predictions.evaluation import is_within_sd, label_mean, label_sd, score_lists
from tests.predictions import comparison_oracle as comparison

SCALE = np.arange(1, 6, dtype=float)


def random_labels(seed: int, n: int) -> tuple[run_statistics.Labels, list[list[int]]]:
    rng = np.random.default_rng(seed)
    lists = [sorted(rng.integers(1, 6, int(rng.integers(1, 12))).tolist()) for _ in range(n)]
    counts = np.array([np.bincount(lab, minlength=6)[1:] for lab in lists])
    return run_statistics.Labels(counts, SCALE), lists


def near_the_edges(labels: list[int]) -> list[float]:
    avg, sd = label_mean(labels), label_sd(labels)
    points = [avg, avg - 1, avg + 1, avg - sd, avg + sd, 0.0, 6.0]
    out = []
    for p in points:
        out += [p, math.nextafter(p, -math.inf), math.nextafter(p, math.inf)]
    return out


def test_every_verdict_is_the_official_rules_even_one_float_from_the_edges():
    labels, lists = random_labels(1, 400)
    low, high = labels.bands
    for k, lab in enumerate(lists):
        for p in near_the_edges(lab) + [float(low[k]), float(high[k])]:
            inside = bool(labels.take([k]).inside(np.array([p]))[0])
            assert inside is is_within_sd(p, lab), (lab, p)


def test_official_scores_equal_score_lists():
    labels, lists = random_labels(2, 300)
    preds = np.random.default_rng(2).uniform(0.5, 5.5, 300)
    preds[::7] = np.round(preds[::7])  # ties among the predictions
    assert run_statistics.official(labels, preds) == score_lists(lists, preds.tolist())
    ended = np.arange(300) % 3 > 0
    parts = run_statistics.split_by_ending(labels, preds, ended)
    assert parts == comparison.split_by_ending(lists, preds.tolist(), ended.tolist())


def test_label_distribution_rounds_half_up_like_the_paper():
    values = np.array([0.2, 1.5, 2.5, 2.4999999, 3.5, 4.5, 5.7, 3.0, 1.49])
    assert run_statistics.label_distribution(values) == comparison.label_distribution(
        values.tolist()
    )
    assert run_statistics.label_distribution(np.array([])) == [0.0] * 5


@pytest.mark.parametrize("ties", [False, True])
def test_setup_bootstrap_intervals_equal_the_comparison_modules(ties):
    labels, lists = random_labels(3, 120)
    preds = np.random.default_rng(3).uniform(1, 5, 120)
    if ties:
        preds = np.round(preds * 2) / 2
    setups = np.arange(120) // 6 + 1000
    fast = run_statistics.run_intervals(labels, preds, setups, n_boot=300, seed=4)
    slow = comparison.run_intervals(lists, preds.tolist(), setups.tolist(), n_boot=300, seed=4)
    assert fast["accuracy"] == pytest.approx(slow["accuracy"], abs=1e-12)
    assert fast["spearman"] == pytest.approx(slow["spearman"], abs=1e-12)


def test_paired_comparison_equals_the_comparison_modules():
    labels, lists = random_labels(5, 90)
    rng = np.random.default_rng(5)
    a, b = rng.uniform(1, 5, 90), np.round(rng.uniform(1, 5, 90))
    setups = (np.arange(90) // 6).tolist()
    fast = run_statistics.paired_comparison(labels, a, b, setups, n_boot=200, seed=1)
    slow = comparison.paired_comparison(lists, a.tolist(), b.tolist(), setups, n_boot=200, seed=1)
    for field, value in vars(slow).items():
        assert getattr(fast, field) == pytest.approx(value, abs=1e-12), field
