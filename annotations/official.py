"""The official SemEval-2026 Task 5 rule for one sample, as a pure module (no Django).

The official scorer (CodaBench, ``scoring.py`` of semeval26-05-scripts) counts a prediction
correct when it is "within standard deviation" of the human labels, where the SD is the
*sample* SD (``statistics.stdev``) and the rule has strict inequalities:
``avg - sd < pred < avg + sd`` or else ``|avg - pred| < 1``; and it reports Spearman's rho
between the predictions and the label means.

This module is the one home of those semantics. It sits at the bottom of the project
(``annotations``) so that agreement metrics, model scoring, dashboards and training all call
it instead of restating it; file parsing and whole-set scoring live in
:mod:`predictions.evaluation`.
"""

from __future__ import annotations

import math
import statistics
import warnings
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

__all__ = ["accepted_band", "is_within_sd", "label_mean", "label_sd", "spearman"]


def label_mean(labels: Sequence[float]) -> float:
    """Mean exactly as the official scorer computes it: ``sum(l) / len(l)``."""
    return sum(labels) / len(labels)


@lru_cache(maxsize=4096)
def _sd_of_sorted(labels: tuple) -> float:
    return statistics.stdev(labels) if len(labels) > 1 else 0.0


def label_sd(labels: Sequence[float]) -> float:
    """Sample standard deviation (``statistics.stdev``), 0 for a single label.

    ``statistics.stdev`` sums exactly (with fractions), so its result does not depend on
    the order of the labels: caching on the sorted tuple is exact and makes scoring fast.
    A vectorised SD (numpy) can differ in the last bit, which flips samples that sit on
    the boundary, so it is never used here.
    """
    return _sd_of_sorted(tuple(sorted(labels)))


def is_within_sd(prediction: float, labels: Sequence[float]) -> bool:
    """The official "accuracy within standard deviation" rule for one sample."""
    avg = label_mean(labels)
    sd = label_sd(labels)
    if avg - sd < prediction < avg + sd:
        return True
    return abs(avg - prediction) < 1


def accepted_band(labels: Sequence[float]) -> tuple[float, float]:
    """The open interval ``(lo, hi)`` of predictions that :func:`is_within_sd` accepts.

    ``avg - sd < p < avg + sd or |avg - p| < 1`` is the open interval of half-width
    ``max(sd, 1)`` around ``avg``, up to float rounding at its two edges (where the rule's
    own arithmetic decides). For training objectives that need the band as numbers; whether
    one prediction is correct is always :func:`is_within_sd`'s verdict.
    """
    avg = label_mean(labels)
    half = max(label_sd(labels), 1.0)
    return avg - half, avg + half


def spearman(
    predictions: Sequence[float] | np.ndarray, means: Sequence[float] | np.ndarray
) -> float | None:
    """Spearman's rho as the official scorer reports it (``scipy.stats.spearmanr``).

    ``None`` where it is undefined: fewer than two items, or constant input (a majority
    baseline is an expected case, so scipy's warning is silenced).
    """
    from scipy.stats import spearmanr  # scipy is heavy; imported only when scoring

    if len(predictions) < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rho = float(spearmanr(predictions, means).statistic)
    return None if math.isnan(rho) else rho
