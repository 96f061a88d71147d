"""annotations.mixed_models (lme4-style profiled ML with crossed random effects) against
statsmodels' MixedLM on the models both can fit, and on planted effects."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from statsmodels.regression.mixed_linear_model import MixedLM

from annotations.mixed_models import factor, fit, likelihood_ratio


def _data(slope: float = 1.5, seed: int = 1, words: int = 15, subjects: int = 12):
    rng = np.random.default_rng(seed)
    rows = []
    for w in range(words):
        word_shift, word_slope = rng.normal(0, 0.6), rng.normal(0, 0.4)
        for s in range(subjects):
            subject_shift = rng.normal(0, 0.4)
            for same in (0, 1):
                x1 = rng.uniform()
                y = 2 + word_shift + subject_shift + (slope + word_slope) * same + 0.3 * x1
                rows.append((s, w, y + rng.normal(0, 0.5), same, x1))
    subjects = np.array([r[0] for r in rows])
    words = np.array([r[1] for r in rows])
    y = np.array([r[2] for r in rows])
    x = np.column_stack([np.ones(len(rows)), [r[3] for r in rows], [r[4] for r in rows]])
    return subjects, words, y, x


def _statsmodels(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # boundary and singular-covariance notices
        return MixedLM(*args, **kwargs).fit(reml=False)


def _dense_optimum(y, x, zs):
    """An independent fit: the multivariate normal log-likelihood with the full n x n
    covariance, maximised over every parameter (fixed effects, log SDs) by Nelder-Mead."""
    from scipy.optimize import minimize
    from scipy.stats import multivariate_normal

    def negative(params):
        beta, log_sd = params[: x.shape[1]], params[x.shape[1] :]
        cov = np.exp(2 * log_sd[0]) * np.eye(len(y))
        for z, s in zip(zs, log_sd[1:], strict=True):
            cov += np.exp(2 * s) * z @ z.T
        return -multivariate_normal.logpdf(y, x @ beta, cov)

    start = np.concatenate([np.linalg.lstsq(x, y, rcond=None)[0], np.full(1 + len(zs), -1.0)])
    found = minimize(negative, start, method="Nelder-Mead",
                     options={"maxiter": 6000, "xatol": 1e-7, "fatol": 1e-9})  # fmt: skip
    return -found.fun, found.x[: x.shape[1]]


def test_crossed_intercepts_match_an_independent_dense_likelihood_and_beat_statsmodels():
    subjects, words, y, x = _data(words=8, subjects=7)
    one = np.ones(len(y))
    ours = fit(
        y, x, [factor("s", subjects.astype(str), [one]), factor("w", words.astype(str), [one])]
    )
    zs = [np.eye(7)[subjects], np.eye(8)[words]]
    llf, beta = _dense_optimum(y, x, zs)
    assert ours.llf == pytest.approx(llf, abs=1e-3)
    assert ours.beta == pytest.approx(beta, abs=1e-3)
    # statsmodels' variance components fit the same model; it stops lower here, never higher
    theirs = _statsmodels(y, x, groups=np.zeros(len(y)), exog_vc={"s": {0: zs[0]}, "w": {0: zs[1]}})
    assert ours.llf >= theirs.llf - 1e-6


def test_a_correlated_random_slope_matches_statsmodels():
    _, words, y, x = _data()
    one = np.ones(len(y))
    ours = fit(y, x, [factor("w", words.astype(str), [one, x[:, 1]])])
    theirs = _statsmodels(y, x, groups=words, exog_re=np.column_stack([one, x[:, 1]]))
    assert ours.llf == pytest.approx(theirs.llf, abs=1e-3)
    assert ours.beta == pytest.approx(np.asarray(theirs.fe_params), abs=1e-4)


def test_the_likelihood_ratio_finds_a_planted_effect_and_not_an_absent_one():
    subjects, words, y, x = _data(slope=1.5)
    one = np.ones(len(y))
    factors = [
        factor("s", subjects.astype(str), [one]),
        factor("w", words.astype(str), [one, x[:, 1]]),
    ]
    full = fit(y, x, factors)
    chi2, p = likelihood_ratio(full, fit(y, x[:, [0, 2]], factors, start=full.theta))
    assert chi2 > 30 and p < 1e-8
    assert full.beta[1] == pytest.approx(1.5, abs=0.35)
    _, _, y0, _ = _data(slope=0.0)
    null = fit(y0, x, factors)
    assert likelihood_ratio(null, fit(y0, x[:, [0, 2]], factors))[1] > 0.01


def test_bad_designs_are_refused_with_the_reason():
    subjects, words, y, x = _data()
    one = np.ones(len(y))
    with pytest.raises(ValueError, match="rank deficient"):
        fit(y, np.column_stack([x, x[:, 1]]), [factor("w", words.astype(str), [one])])
    with pytest.raises(ValueError, match="one row per observation"):
        fit(y[:-1], x, [factor("w", words.astype(str), [one])])
