"""Change and agreement statistics of clustered Word Usage Graphs. Pure: no Django.

- Sense frequencies: per grouping (a time period or a group of speakers), how many of its uses
  fall in each cluster.
- Graded change: the Jensen-Shannon distance (scipy, base 2: the square root of the
  divergence, in [0, 1]) between two groupings' normalised cluster frequency distributions,
  as DWUG reports it.
- Binary change (SemEval-2020 Task 1, DWUG): a word changed if some cluster has at most
  ``at_most`` uses in one grouping and at least ``at_least`` in the other (a sense gained or
  lost). Defaults ``at_most=2``, ``at_least=5``; both are stated wherever a result is shown.
- Agreement: the mean of pairwise Spearman correlations between annotators over the pairs both
  judged (0s left out; an annotator pair counts when it shares at least ``min_common`` pairs
  and neither side is constant), and Krippendorff's alpha (ordinal) over all judgments with
  0 as missing. An annotator who judged a pair more than once counts with the median of
  their decided judgments of it (``annotator_scores``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations
from statistics import median

import numpy as np

from wug.graph import CANNOT_DECIDE, Judgment, pair_key

AT_MOST = 2
AT_LEAST = 5


def sense_frequencies(
    labels: Mapping[str, int], groupings: Mapping[str, str]
) -> dict[str, dict[int, int]]:
    """``{grouping: {cluster: uses}}`` over the uses that have both a cluster and a grouping."""
    out: dict[str, Counter[int]] = defaultdict(Counter)
    for use, cluster in labels.items():
        if use in groupings:
            out[groupings[use]][cluster] += 1
    return {g: dict(sorted(c.items())) for g, c in sorted(out.items())}


def _vectors(freq1: Mapping[int, int], freq2: Mapping[int, int]) -> tuple[np.ndarray, np.ndarray]:
    clusters = sorted(set(freq1) | set(freq2))
    return (
        np.array([freq1.get(c, 0) for c in clusters], dtype=float),
        np.array([freq2.get(c, 0) for c in clusters], dtype=float),
    )


def jensen_shannon(freq1: Mapping[int, int], freq2: Mapping[int, int]) -> float | None:
    """Jensen-Shannon distance (base 2) of two cluster frequency distributions; None if
    either grouping has no uses."""
    from scipy.spatial.distance import jensenshannon

    p, q = _vectors(freq1, freq2)
    if p.sum() == 0 or q.sum() == 0:
        return None
    return float(jensenshannon(p / p.sum(), q / q.sum(), base=2))


def binary_change(
    freq1: Mapping[int, int],
    freq2: Mapping[int, int],
    *,
    at_most: int = AT_MOST,
    at_least: int = AT_LEAST,
) -> bool:
    """True if a cluster has <= ``at_most`` uses in one grouping, >= ``at_least`` in the other."""
    p, q = _vectors(freq1, freq2)
    gained = (p <= at_most) & (q >= at_least)
    lost = (q <= at_most) & (p >= at_least)
    return bool((gained | lost).any())


@dataclass(frozen=True)
class Agreement:
    """Mean pairwise Spearman (None if no annotator pair qualifies), the annotator pairs it
    averages, and ordinal Krippendorff alpha (None where undefined)."""

    spearman: float | None
    annotator_pairs: int
    alpha: float | None


def annotator_scores(judgments: Iterable[Judgment]) -> dict[tuple[str, tuple[str, str]], float]:
    """``{(annotator, pair): score}``: each annotator's decided judgments of a pair (0s left
    out), the median where they judged it more than once (as an edge's weight is), so the
    order of the rows never matters."""
    scores: dict[tuple[str, tuple[str, str]], list[float]] = defaultdict(list)
    for j in judgments:
        if j.score != CANNOT_DECIDE:
            scores[(j.annotator, pair_key(j.use1, j.use2))].append(float(j.score))
    return {cell: float(median(values)) for cell, values in scores.items()}


def pairwise_spearman(
    judgments: Iterable[Judgment], *, min_common: int = 2
) -> tuple[float | None, int]:
    from scipy.stats import spearmanr

    by_annotator: dict[str, dict[tuple[str, str], float]] = defaultdict(dict)
    for (annotator, pair), score in annotator_scores(judgments).items():
        by_annotator[annotator][pair] = score
    rhos = []
    for a, b in combinations(sorted(by_annotator), 2):
        common = sorted(set(by_annotator[a]) & set(by_annotator[b]))
        if len(common) < min_common:
            continue
        x = [by_annotator[a][p] for p in common]
        y = [by_annotator[b][p] for p in common]
        if len(set(x)) < 2 or len(set(y)) < 2:
            continue
        rhos.append(float(spearmanr(x, y).statistic))
    return (float(np.mean(rhos)) if rhos else None), len(rhos)


def ordinal_alpha(judgments: Iterable[Judgment]) -> float | None:
    """Krippendorff's alpha, ordinal, annotators x pairs with 0 and unjudged as missing."""
    import krippendorff

    cells = annotator_scores(judgments)
    annotators = sorted({a for a, _ in cells})
    pairs = sorted({p for _, p in cells})
    if len(annotators) < 2 or not pairs:
        return None
    matrix = np.full((len(annotators), len(pairs)), np.nan)
    a_index = {a: i for i, a in enumerate(annotators)}
    p_index = {p: i for i, p in enumerate(pairs)}
    for (a, p), score in cells.items():
        matrix[a_index[a], p_index[p]] = score
    pairable = (~np.isnan(matrix)).sum(axis=0) >= 2
    if (
        not pairable.any()
        or len(np.unique(matrix[:, pairable][~np.isnan(matrix[:, pairable])])) < 2
    ):
        return None
    # the scale, and the half points a median of two judgments can fall on (in order)
    domain = sorted({1.0, 2.0, 3.0, 4.0} | set(cells.values()))
    return float(
        krippendorff.alpha(
            reliability_data=matrix, value_domain=domain, level_of_measurement="ordinal"
        )
    )


def agreement(judgments: Iterable[Judgment], *, min_common: int = 2) -> Agreement:
    judged = list(judgments)
    rho, n = pairwise_spearman(judged, min_common=min_common)
    return Agreement(rho, n, ordinal_alpha(judged))
