"""Group-level agreement (``metrics_annotators.group_figures`` and the design's groups in
``RatingTable.group``) against the independent oracle in ``group_oracle.py``."""

from __future__ import annotations

import numpy as np
import pytest

from annotations import metrics_annotators, metrics_bootstrap
from annotations.metrics import RatingTable

from .group_oracle import group_oracle


def list_design(seed: int, n_lists: int = 4, per_list: int = 5, size: int = 12, extra=()):
    """Ratings as ``(group, rater, sample, score)``: each list's ``per_list`` raters rate
    its ``size`` samples (a shared latent value plus noise, 1-5); ``extra`` adds rows."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(n_lists):
        truth = rng.integers(1, 6, size)
        for r in range(per_list):
            noise = rng.integers(-1, 2, size) * (rng.random(size) < 0.5)
            scores = np.clip(truth + noise, 1, 5)
            rows += [(g, g * 100 + r, g * 1000 + s, int(v)) for s, v in enumerate(scores)]
    return rows + list(extra)


def table_of(rows) -> RatingTable:
    return RatingTable.from_rows(
        [(s, r, v) for _, r, s, v in rows],
        {s: s // 6 for _, _, s, _ in rows},
        group_of_rater={r: g for g, r, _, _ in rows},
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_each_lists_best_and_average_annotator_match_the_oracle(seed):
    rows = list_design(seed)
    ann = metrics_annotators.annotator_scores(table_of(rows), groups_known=True)
    found = metrics_annotators.group_figures(ann).rows()
    expected = group_oracle(rows)["groups"]
    assert len(found) == len(expected) == 4
    for row, (_, want) in zip(found, sorted(expected.items())):
        assert row["annotators"] == want["annotators"] == 5
        assert row["samples"] == want["samples"] == 12
        for key in ("best_accuracy", "best_spearman", "average_accuracy", "average_spearman"):
            assert row[key] == pytest.approx(want[key], abs=1e-9), key


@pytest.mark.parametrize("seed", [4, 5])
def test_the_agreement_figures_follow_the_designs_groups(seed):
    rows = list_design(seed, n_lists=6)
    result = metrics_bootstrap.agreement(table_of(rows), groups_known=True, n_boot=0)
    want = group_oracle(rows)
    for key in ("best_accuracy", "best_spearman", "average_accuracy", "average_spearman"):
        assert result.values[key] == pytest.approx(want[key], abs=1e-9), key
    assert result.values["loo_spearman"] == pytest.approx(want["loo_spearman"], abs=1e-9)
    assert result.groups_by_design and result.n_groups == 6 and len(result.groups) == 6


def test_a_partial_rater_stays_in_their_list_not_a_group_of_their_own():
    # rater 7 rated only 4 of list 0's samples (a participant who timed out): found groups
    # (samples with the same raters) would split list 0 in two; the design keeps it whole
    rows = list_design(6, n_lists=2) + [(0, 7, s, 3) for s in range(4)]
    designed = metrics_annotators.annotator_scores(table_of(rows), groups_known=True)
    assert list(designed.group_samples) == [12, 12]
    plain = RatingTable.from_rows([(s, r, v) for _, r, s, v in rows])
    found = metrics_annotators.annotator_scores(plain, groups_known=True)
    assert len(found.group_samples) == 3
    want = group_oracle(rows)["groups"][0]
    got = metrics_annotators.group_figures(designed).rows()[0]
    assert got["annotators"] == want["annotators"] == 6
    assert got["best_spearman"] == pytest.approx(want["best_spearman"], abs=1e-9)
    assert got["average_accuracy"] == pytest.approx(want["average_accuracy"], abs=1e-9)


def test_a_group_too_small_for_the_upper_bound_is_marked_and_left_out():
    rows = list_design(7, n_lists=3) + [(9, 900, 5000 + s, 1 + s % 5) for s in range(3)]
    rows += [(9, 901, 5000 + s, 2) for s in range(3)]  # a list of 3 samples: too small
    ann = metrics_annotators.annotator_scores(table_of(rows), groups_known=True)
    ok = ann.group_samples >= 5
    assert [g["usable"] for g in metrics_annotators.group_figures(ann, ok).rows()] == [
        True,
        True,
        True,
        False,
    ]
    result = metrics_bootstrap.agreement(table_of(rows), groups_known=True, n_boot=0)
    assert len(result.groups) == 3 and result.n_small_groups == 1
    assert result.values["best_accuracy"] == pytest.approx(group_oracle(rows)["best_accuracy"])
