"""Pure maths for post-processing predictions (no Django): calibration, squashing, pair
blending, stacking, and out-of-fold fitting with folds grouped by homonym.

Every transform is a pair ``fit(X, labels) -> params`` / ``apply(params, X) -> values``, where
``X`` is an ``(n, k)`` array of source predictions and ``labels`` the human ratings per
sample. :func:`out_of_fold` fits on the other folds and applies to each fold, so a sample's
value never comes from a fit that saw it (or its homonym).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .evaluation import score_lists

EPSILON_SLOPE = 1e-6  # keeps monotone maps strictly increasing, so ranks never tie

Floats = Sequence[float] | np.ndarray  # plain sequences or numpy arrays alike


def means(labels: Sequence[Sequence[float]]) -> np.ndarray:
    return np.array([sum(lab) / len(lab) for lab in labels], dtype=float)


# --- order-preserving (isotonic) calibration -------------------------------------------
def isotonic_fit(x: Floats, y: Floats) -> tuple[list[float], list[float]]:
    """Pool-adjacent-violators: knots (x, y) of the non-decreasing least-squares fit.

    Equal inputs are pooled first, so every knot has its own x and the fit is a function.
    """
    xs, inverse = np.unique(np.asarray(x, dtype=float), return_inverse=True)
    sums = np.bincount(inverse, weights=np.asarray(y, dtype=float))
    counts = np.bincount(inverse).astype(float)
    blocks: list[list[float]] = []  # [sum_y, count, sum of x weighted by count]
    for xv, s, c in zip(xs, sums, counts):
        blocks.append([s, c, xv * c])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] >= blocks[-1][0] / blocks[-1][1]:
            s2, c2, sx2 = blocks.pop()
            blocks[-1][0] += s2
            blocks[-1][1] += c2
            blocks[-1][2] += sx2
    return [b[2] / b[1] for b in blocks], [b[0] / b[1] for b in blocks]


def monotone_apply(knots: tuple[Floats, Floats], x: Floats) -> np.ndarray:
    """Interpolate between knots, plus a tiny slope: strictly increasing, so Spearman holds."""
    kx, ky = (np.asarray(k, dtype=float) for k in knots)
    xs = np.asarray(x, dtype=float)
    if len(kx) == 0:
        return xs.copy()
    return np.interp(xs, kx, ky) + EPSILON_SLOPE * (xs - kx.mean())


def isotonic(X: np.ndarray, labels) -> tuple:
    return isotonic_fit(X[:, 0], means(labels))


def isotonic_transform(params, X: np.ndarray) -> np.ndarray:
    return monotone_apply(params, X[:, 0])


# --- squashing into a band ---------------------------------------------------------------
def squash(
    values: Floats,
    *,
    low: float = 1.95,
    high: float = 4.05,
    center: float = 3.0,
    steepness: float = 2.0,
) -> np.ndarray:
    """A logistic map into [low, high] that keeps every rank.

    Where the logistic saturates, floats would tie distinct inputs; a tiny arctan term (at
    most 1e-6 of the band) keeps the map strictly increasing there, so Spearman holds.
    """
    x = np.asarray(values, dtype=float)
    z = np.clip(steepness * (x - center), -700, 700)
    tie_break = 0.5 + np.arctan(x - center) / np.pi  # in (0, 1), strictly increasing
    width = (high - low) * (1.0 - EPSILON_SLOPE)
    return low + width / (1.0 + np.exp(-z)) + (high - low) * EPSILON_SLOPE * tie_break


def accuracy(labels, values: Floats) -> float:
    return score_lists(labels, [float(v) for v in values]).accuracy


def squash_fit(X: np.ndarray, labels, *, low: float = 1.95, high: float = 4.05) -> dict[str, float]:
    """Pick the centre (a quantile of the inputs) and steepness with the best accuracy."""
    x = X[:, 0]
    best = (-1.0, {"low": low, "high": high, "center": 3.0, "steepness": 2.0})
    for center in np.quantile(x, np.linspace(0.2, 0.8, 13)):
        for steep in (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 50.0):
            scale = steep / (x.std() or 1.0)
            params = {"low": low, "high": high, "center": float(center), "steepness": scale}
            acc = accuracy(labels, squash(x, **params))
            if acc > best[0]:
                best = (acc, params)
    return best[1]


def squash_transform(params: dict, X: np.ndarray) -> np.ndarray:
    return squash(X[:, 0], **params)


# --- pair-aware blending -----------------------------------------------------------------
def own_and_partner(values: Floats, partner: Sequence[int | None]) -> np.ndarray:
    """Columns (own prediction, the other sense's prediction or NaN when it has none)."""
    v = np.asarray(values, dtype=float)
    other = np.array([v[p] if p is not None else np.nan for p in partner], dtype=float)
    return np.column_stack([v, other])


def pair_blend(X: np.ndarray, *, weight: float, total: float) -> np.ndarray:
    """``weight * own + (1 - weight) * (total - other)``; own value where no partner."""
    own, other = X[:, 0], X[:, 1]
    mirrored = np.where(np.isnan(other), own, total - other)
    return weight * own + (1.0 - weight) * mirrored


def pair_blend_fit(X: np.ndarray, labels) -> dict[str, float]:
    """``total`` = mean sum of the two senses' predictions; ``weight`` by least squares."""
    y = means(labels)
    paired = ~np.isnan(X[:, 1])
    total = float(np.mean(X[paired, 0] + X[paired, 1])) if paired.any() else 6.0
    best = min(
        np.linspace(0, 1, 21),
        key=lambda w: float(np.mean((pair_blend(X, weight=w, total=total) - y) ** 2)),
    )
    return {"weight": float(best), "total": total}


def pair_blend_transform(params: dict, X: np.ndarray) -> np.ndarray:
    return pair_blend(X, **params)


# --- stacking ----------------------------------------------------------------------------
def stack_fit(X: np.ndarray, labels, *, alpha: float = 1.0) -> dict[str, list[float]]:
    """Ridge regression of the human mean on the source predictions (intercept not shrunk)."""
    y = means(labels)
    mu, sd = X.mean(axis=0), X.std(axis=0)
    sd[sd == 0] = 1.0
    Z = (X - mu) / sd
    coef = np.linalg.solve(Z.T @ Z + alpha * np.eye(Z.shape[1]), Z.T @ (y - y.mean()))
    return {"mu": mu.tolist(), "sd": sd.tolist(), "coef": coef.tolist(), "bias": float(y.mean())}


def stack_transform(params: dict, X: np.ndarray) -> np.ndarray:
    Z = (X - np.asarray(params["mu"])) / np.asarray(params["sd"])
    return Z @ np.asarray(params["coef"]) + params["bias"]


# --- constants and folds -----------------------------------------------------------------
def tune_constant(labels, grid: Floats | None = None) -> float:
    """The constant prediction with the best accuracy on ``labels`` (ties: closest to 3)."""
    candidates = np.round(np.arange(1.0, 5.0001, 0.01), 2) if grid is None else grid
    return float(max(candidates, key=lambda c: (accuracy(labels, [c] * len(labels)), -abs(c - 3))))


def grouped_folds(groups: Sequence[str], k: int = 5) -> list[int]:
    """Fold number per item; all items of one group (homonym) share a fold, stably."""
    names = sorted(set(groups), key=lambda g: (zlib.crc32(str(g).encode()), str(g)))
    fold_of = {g: i % k for i, g in enumerate(names)}
    return [fold_of[g] for g in groups]


@dataclass(frozen=True)
class Transform:
    name: str
    fit: Callable
    apply: Callable
    columns: int | None = None  # number of source runs it takes; None = any


TRANSFORMS: dict[str, Transform] = {
    "calibrate": Transform("calibrate", isotonic, isotonic_transform, 1),
    "squash": Transform("squash", squash_fit, squash_transform, 1),
    "pair_blend": Transform("pair_blend", pair_blend_fit, pair_blend_transform, 1),
    "stack": Transform("stack", stack_fit, stack_transform, None),
}


def out_of_fold(
    transform: Transform, X: np.ndarray, labels, groups: Sequence[str], k: int = 5
) -> tuple[np.ndarray, list[int]]:
    """Values for every row from fits on the other folds only (folds grouped by ``groups``)."""
    folds = np.array(grouped_folds(groups, k))
    out = np.empty(len(X), dtype=float)
    for fold in sorted(set(folds.tolist())):
        train = np.flatnonzero(folds != fold)
        test = np.flatnonzero(folds == fold)
        params = transform.fit(X[train], [labels[i] for i in train])
        out[test] = transform.apply(params, X[test])
    return out, folds.tolist()
