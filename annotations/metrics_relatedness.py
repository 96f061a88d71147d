"""Agreement for graded judgments collected the RAW-C way: each participant rated a subset
of items once. Pure: plain sequences in, numbers out; no Django."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import numpy as np
from scipy.stats import spearmanr

RAWC_REPORTED_AGREEMENT = 0.79  # Trott & Bergen 2021, section 5.3 (mean rho; median 0.81)


@dataclass(frozen=True)
class LeaveOneOut:
    mean: float
    median: float
    sd: float
    low: float
    high: float
    per_annotator: dict[Hashable, float]

    @property
    def n_annotators(self) -> int:
        return len(self.per_annotator)


def leave_one_annotator_out(
    judgments: Iterable[tuple[Hashable, Hashable, float]], *, min_items: int = 3
) -> LeaveOneOut | None:
    """RAW-C's agreement: for each annotator, Spearman's rho between their judgments and
    the mean judgment of the same items by everyone else; then the mean, median, SD (n-1),
    lowest and highest rho over annotators. ``judgments`` are (annotator, item, score).
    Annotators with fewer than ``min_items`` items that others also judged, or with a rho
    that is undefined (constant answers), are left out. None when no annotator is left."""
    by_item: dict[Hashable, dict[Hashable, float]] = defaultdict(dict)
    for annotator, item, score in judgments:
        by_item[item][annotator] = float(score)
    totals = {item: (sum(s.values()), len(s)) for item, s in by_item.items()}
    mine: dict[Hashable, list[tuple[float, float]]] = defaultdict(list)
    for item, scores in by_item.items():
        total, n = totals[item]
        if n < 2:
            continue
        for annotator, score in scores.items():
            mine[annotator].append((score, (total - score) / (n - 1)))
    rhos = {}
    for annotator, rows in mine.items():
        if len(rows) < min_items:
            continue
        own, others = np.array(rows).T
        if np.ptp(own) == 0 or np.ptp(others) == 0:
            continue
        rhos[annotator] = float(spearmanr(own, others).statistic)
    if not rhos:
        return None
    values = np.array(list(rhos.values()))
    return LeaveOneOut(
        mean=float(values.mean()),
        median=float(np.median(values)),
        sd=float(values.std(ddof=1)) if len(values) > 1 else 0.0,
        low=float(values.min()),
        high=float(values.max()),
        per_annotator=rhos,
    )
