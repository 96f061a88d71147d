"""Linear mixed models with crossed random effects, fitted by maximum likelihood the way lme4
fits them (Bates et al. 2015): the covariance of each grouping factor's random effects is
``sigma^2 T T'`` with ``T`` lower triangular, and the likelihood is profiled over the fixed
effects and ``sigma^2`` so that only the entries of each ``T`` are optimised.

statsmodels' ``MixedLM`` takes one grouping factor; crossed subjects and words there become
variance components in a single group, which fits RAW-C's 8,624 judgments in minutes and
allows no random slopes. Here each evaluation of the likelihood is one Cholesky
factorisation of a (levels x terms)-sized matrix, so the paper's models (crossed intercepts
plus by-subject and by-word slopes) fit in seconds. ``tests/annotations/test_mixed_models.py``
checks the log-likelihood and the coefficients against statsmodels on the models both can fit.
No Django.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Factor:
    """One grouping factor: each row's level (0..levels-1) and the row's values of the terms
    that vary by level (a column of ones for a random intercept, a predictor for a slope)."""

    name: str
    level: np.ndarray
    terms: np.ndarray  # rows x k

    @property
    def levels(self) -> int:
        return int(self.level.max()) + 1 if len(self.level) else 0

    @property
    def k(self) -> int:
        return self.terms.shape[1]


@dataclass(frozen=True)
class Fit:
    llf: float
    beta: np.ndarray
    sigma2: float
    theta: np.ndarray
    converged: bool


def factor(name: str, labels: Sequence[str], terms: Sequence[np.ndarray]) -> Factor:
    """A factor from each row's label and its random terms (``np.ones(n)`` for an intercept)."""
    names = {label: i for i, label in enumerate(sorted(set(labels)))}
    level = np.array([names[label] for label in labels], dtype=int)
    return Factor(name, level, np.column_stack([np.asarray(t, dtype=float) for t in terms]))


def _design(factors: Sequence[Factor], n: int) -> np.ndarray:
    blocks = []
    for f in factors:
        z = np.zeros((n, f.levels * f.k))
        columns = f.level * f.k
        for j in range(f.k):
            z[np.arange(n), columns + j] = f.terms[:, j]
        blocks.append(z)
    return np.hstack(blocks)


def _theta_start(factors: Sequence[Factor]) -> tuple[np.ndarray, list[tuple[float | None, None]]]:
    start: list[float] = []
    bounds: list[tuple[float | None, None]] = []
    for f in factors:
        for i in range(f.k):
            for j in range(i + 1):
                start.append(1.0 if i == j else 0.0)
                bounds.append((0.0 if i == j else None, None))
    return np.array(start), bounds


def _triangles(theta: np.ndarray, factors: Sequence[Factor]) -> list[np.ndarray]:
    """Each factor's lower-triangular T from the flat parameter vector."""
    out, at = [], 0
    for f in factors:
        t = np.zeros((f.k, f.k))
        rows, cols = np.tril_indices(f.k)
        t[rows, cols] = theta[at : at + len(rows)]
        at += len(rows)
        out.append(t)
    return out


def _offsets(factors: Sequence[Factor]) -> list[int]:
    return list(np.cumsum([0] + [f.levels * f.k for f in factors]))


def _scale_rows(v: np.ndarray, ts: list[np.ndarray], factors: Sequence[Factor]) -> np.ndarray:
    """Lambda' v, using Lambda's block structure (each factor's T once per level)."""
    out, at = [], _offsets(factors)
    for f, t, lo, hi in zip(factors, ts, at, at[1:], strict=False):
        block = v[lo:hi].reshape(f.levels, f.k, -1)
        out.append(np.einsum("xi,axc->aic", t, block).reshape(hi - lo, -1))
    return np.vstack(out).reshape(v.shape)


def _sandwich(m: np.ndarray, ts: list[np.ndarray], factors: Sequence[Factor]) -> np.ndarray:
    """Lambda' M Lambda, block by block: O(q^2 k) instead of two dense q^3 products."""
    at = _offsets(factors)
    out = np.empty_like(m)
    for f, tf, flo, fhi in zip(factors, ts, at, at[1:], strict=False):
        for g, tg, glo, ghi in zip(factors, ts, at, at[1:], strict=False):
            block = m[flo:fhi, glo:ghi].reshape(f.levels, f.k, g.levels, g.k)
            left = np.tensordot(tf, block, axes=([0], [1]))  # i, a, b, y
            both = np.tensordot(left, tg, axes=([3], [0]))  # i, a, b, j
            out[flo:fhi, glo:ghi] = both.transpose(1, 0, 2, 3).reshape(fhi - flo, ghi - glo)
    return out


class _Profile:
    """The cross-products, computed once; ``deviance(theta)`` is -2 x the profiled ML
    log-likelihood (lme4's PLS formulation through the Woodbury identity)."""

    def __init__(self, y: np.ndarray, x: np.ndarray, factors: Sequence[Factor]):
        z = _design(factors, len(y))
        self.n, self.factors = len(y), factors
        self.ztz, self.ztx, self.zty = z.T @ z, z.T @ x, z.T @ y
        self.xtx, self.xty, self.yty = x.T @ x, x.T @ y, float(y @ y)

    def solve(self, theta: np.ndarray) -> tuple[float, np.ndarray, float]:
        from scipy.linalg import cho_factor, solve_triangular

        ts = _triangles(theta, self.factors)
        a = _sandwich(self.ztz, ts, self.factors)
        a[np.diag_indices_from(a)] += 1.0
        chol, _ = cho_factor(a, lower=True, overwrite_a=True)
        lower = np.tril(chol)
        cu = solve_triangular(lower, _scale_rows(self.zty, ts, self.factors), lower=True)
        cx = solve_triangular(lower, _scale_rows(self.ztx, ts, self.factors), lower=True)
        m = self.xtx - cx.T @ cx
        b = self.xty - cx.T @ cu
        beta = np.linalg.solve(m, b)
        rss = max(self.yty - float(cu @ cu) - float(b @ beta), 1e-300)
        logdet = 2.0 * float(np.log(np.diag(lower)).sum())
        deviance = logdet + self.n * (1.0 + np.log(2.0 * np.pi * rss / self.n))
        return float(deviance), beta, rss / self.n


def _optimum(profile: _Profile, start: np.ndarray, bounds):
    """The better of L-BFGS-B and SLSQP from ``start``: L-BFGS-B's finite differences can
    stall with a variance at its bound of zero, and SLSQP can stop at a local optimum that
    L-BFGS-B passes (both seen, on small data sets and on RAW-C's reduced models)."""
    from scipy.optimize import minimize

    def deviance(t):
        return profile.solve(t)[0]

    found = [
        minimize(deviance, start, method="L-BFGS-B", bounds=bounds,
                 options={"maxiter": 500, "ftol": 1e-12, "gtol": 1e-7}),
        minimize(deviance, start, method="SLSQP", bounds=bounds,
                 options={"maxiter": 500, "ftol": 1e-10}),
    ]  # fmt: skip
    return min(found, key=lambda r: r.fun)


def fit(
    y: Sequence[float] | np.ndarray,
    x: np.ndarray,
    factors: Sequence[Factor],
    *,
    start: np.ndarray | None = None,
) -> Fit:
    """Maximum-likelihood fit of ``y ~ x`` (``x`` with its intercept column) with the random
    effects of ``factors``; L-BFGS-B and SLSQP over the entries of each factor's ``T``
    (diagonals >= 0, so a variance may sit at zero), from ``start`` (e.g. a larger model's
    ``theta``) or else from independent unit variances; the higher likelihood is kept. A
    likelihood surface can have local optima: a reduced model stopped at one overstates a
    likelihood-ratio statistic (RAW-C's 207.11, docs/dashboards.md), which is why
    ``analyses_rawc_mixed`` starts a reduced model where the full one ended.
    BLAS runs on one thread: OpenBLAS's threads spin-wait on a busy machine, which made each
    Cholesky step ten times slower there."""
    from threadpoolctl import threadpool_limits

    values = np.asarray(y, dtype=float)
    x = np.asarray(x, dtype=float)
    if len(values) != len(x) or any(len(f.level) != len(values) for f in factors):
        raise ValueError("y, x and every factor need one row per observation")
    if np.linalg.matrix_rank(x) < x.shape[1]:
        raise ValueError("the fixed-effects design is rank deficient")
    first, bounds = _theta_start(factors)
    origin = first if start is None else np.asarray(start, dtype=float)
    with threadpool_limits(limits=1, user_api="blas"):
        profile = _Profile(values, x, factors)
        result = _optimum(profile, origin, bounds)
        deviance, beta, sigma2 = profile.solve(result.x)
    return Fit(-deviance / 2.0, beta, sigma2, result.x, bool(result.success))


def likelihood_ratio(full: Fit, reduced: Fit, df: int = 1) -> tuple[float, float]:
    """The chi-squared statistic of two nested ML fits and its p-value."""
    from scipy.stats import chi2

    statistic = max(0.0, 2.0 * (full.llf - reduced.llf))
    return statistic, float(chi2.sf(statistic, df))
