"""Pure post-processing maths: no database."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from predictions import calibration as cal


@pytest.fixture
def noisy():
    rng = np.random.default_rng(7)
    means = rng.uniform(1, 5, 300)
    preds = np.round(means + rng.normal(0, 1.2, 300), 1)  # rounded: many ties
    labels = [[int(np.clip(round(m + d), 1, 5)) for d in (-1, 0, 0, 1)] for m in means]
    return preds, labels


def test_it_keeps_spearman_exactly_when_calibrating_with_isotonic(noisy):
    preds, labels = noisy
    knots = cal.isotonic(preds[:, None], labels)
    calibrated = cal.isotonic_transform(knots, preds[:, None])
    truth = cal.means(labels)
    assert spearmanr(calibrated, truth)[0] == pytest.approx(spearmanr(preds, truth)[0], abs=1e-12)
    assert np.all(np.diff(calibrated[np.argsort(preds, kind="mergesort")]) >= 0)
    assert np.abs(calibrated - truth).mean() < np.abs(preds - truth).mean()


def test_it_keeps_ranks_outside_the_fitted_range():
    knots = cal.isotonic_fit([1, 2, 3], [2, 3, 4])
    out = cal.monotone_apply(knots, [-5, -4, 10, 11])
    assert out[0] < out[1] < out[2] < out[3]


def test_it_squashes_into_the_band_and_keeps_ranks(noisy):
    preds, labels = noisy
    params = cal.squash_fit(preds[:, None], labels, low=1.95, high=4.05)
    out = cal.squash_transform(params, preds[:, None])
    assert out.min() >= 1.95 and out.max() <= 4.05
    assert spearmanr(out, preds)[0] == pytest.approx(1.0)
    assert cal.accuracy(labels, out) >= cal.accuracy(labels, cal.squash(preds))


def test_it_blends_a_prediction_with_the_mirror_of_its_partner():
    X = cal.own_and_partner([4.0, 1.0, 3.0], [1, 0, None])
    out = cal.pair_blend(X, weight=0.5, total=6.0)
    assert out.tolist() == [4.5, 1.5, 3.0]


def test_it_fits_the_pair_weight_towards_the_informative_partner():
    rng = np.random.default_rng(1)
    truth = rng.uniform(1, 5, 200)
    own = truth + rng.normal(0, 2, 200)  # noisy own prediction
    partner_values = 6 - truth + rng.normal(0, 0.2, 200)  # a precise partner
    values = np.concatenate([own, partner_values])
    partner = [i + 200 for i in range(200)] + [None] * 200
    X = cal.own_and_partner(values, partner)[:200]
    params = cal.pair_blend_fit(X, [[t] for t in truth])
    assert params["weight"] < 0.3


def test_it_tunes_the_constant_for_accuracy():
    labels = [[5, 5, 5]] * 6 + [[1, 1, 1]] * 2
    value = cal.tune_constant(labels)
    assert cal.accuracy(labels, [value] * 8) == 0.75
    assert 4 < value <= 5  # anything within 1 of 5; the closest to the middle wins


def test_it_keeps_every_homonym_in_one_fold():
    groups = ["bank", "bat", "bank", "pitch", "seal", "bat", "spring"] * 3
    folds = cal.grouped_folds(groups, k=3)
    for g in set(groups):
        assert len({f for f, h in zip(folds, groups) if h == g}) == 1
    assert cal.grouped_folds(groups, k=3) == folds


def test_it_never_fits_a_fold_on_its_own_rows_or_homonym():
    groups = [h for h in "abcdefgh" for _ in range(4)]
    X = np.arange(len(groups), dtype=float)[:, None]  # the row index as the feature
    fitted_on: list[set] = []

    def fit(Xf, labels):
        fitted_on.append({int(v) for v in Xf[:, 0]})
        return sorted(fitted_on[-1])

    def apply(params, Xa):
        return np.array([1.0 if int(v) in params else 0.0 for v in Xa[:, 0]])

    out, folds = cal.out_of_fold(cal.Transform("t", fit, apply), X, [[3]] * len(X), groups, 4)
    assert out.tolist() == [0.0] * len(X)  # no row was in the fit that produced it
    assert len(fitted_on) == 4
    for rows in fitted_on:
        assert not {groups[i] for i in rows} & {groups[i] for i in range(len(X)) if i not in rows}


def test_it_stacks_runs_with_ridge_weights_that_favour_the_better_run():
    rng = np.random.default_rng(3)
    truth = rng.uniform(1, 5, 300)
    X = np.column_stack([truth + rng.normal(0, 0.3, 300), rng.uniform(1, 5, 300)])
    params = cal.stack_fit(X, [[t] for t in truth])
    assert abs(params["coef"][0]) > 5 * abs(params["coef"][1])
    assert np.abs(cal.stack_transform(params, X) - truth).mean() < 0.4


def test_it_keeps_ranks_even_where_the_squash_saturates():
    x = np.linspace(2.0, 4.0, 500)
    out = cal.squash(x, low=1.95, high=4.05, center=3.0, steepness=200.0)
    assert len(set(out.tolist())) == 500 and np.all(np.diff(out) > 0)
    assert out.min() >= 1.95 and out.max() <= 4.05


def test_it_pools_equal_inputs_into_one_knot():
    kx, ky = cal.isotonic_fit([5, 5, 5, 1, 1], [1, 3, 5, 2, 2])
    assert kx == [1.0, 5.0] and ky == [2.0, 3.0]
