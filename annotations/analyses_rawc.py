"""The analyses of the RAW-C paper (Trott & Bergen 2021) as pure functions (no Django).

Inputs are plain rows: one :class:`PairRow` per sentence pair (mean relatedness, labels,
the BERT and ELMo cosine distances the dataset ships) and, for the mixed models and the
judgment-level figures, one :class:`JudgmentRow` per participant judgment. Each result
carries the paper's figure beside the recomputed one, so a page can show both.

- :func:`r_squared_comparison`: section 5.4's R^2 of three least-squares regressions of mean
  relatedness (distances 0.37, same sense x ambiguity type 0.66, both 0.71).
- :func:`sense_classifiers`: footnote 6's leave-one-out logistic regressions on mean
  relatedness (same vs different sense 86.76 %; homonymy vs polysemy among different-sense
  pairs 79 %), plus the same classifier on the two distances (no paper figure).
- :func:`group_summaries`: Figure 2 (distances by model, same sense and ambiguity type) and
  Figure 3 (mean relatedness per pair by same sense and ambiguity type) as per-group summaries
  and histograms.
- :func:`dominance_summary`: the dominance norms; the paper only publishes them (footnote 7),
  so the site shows their spread and their rank correlation with mean relatedness.

The mixed-effects tests live in :mod:`annotations.analyses_rawc_mixed`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

# Trott & Bergen 2021, section 5.4 and footnote 6.
PAPER_R2 = {"distances": 0.37, "categories": 0.66, "both": 0.71}
PAPER_ACCURACY = {"same_sense": 0.8676, "ambiguity_type": 0.79}
# The paper's R^2 are printed to two decimals: a recomputation within half a unit of the
# last digit (plus rounding slack) reproduces them.
R2_TOLERANCE = 0.006
HOMONYMY, POLYSEMY = "Homonymy", "Polysemy"


@dataclass(frozen=True)
class PairRow:
    word: str
    mean: float
    same_sense: bool
    ambiguity: str
    distance_bert: float
    distance_elmo: float
    word_class: str = ""
    dominance: float | None = None


@dataclass(frozen=True)
class Regression:
    key: str
    formula: str
    paper_r2: float
    r2: float
    adj_r2: float
    n: int


@dataclass(frozen=True)
class Classifier:
    key: str
    description: str
    paper_accuracy: float | None
    accuracy: float
    n: int
    majority: float  # the accuracy of always answering the commoner class


def _categories(rows: Sequence[PairRow]) -> np.ndarray:
    """Same sense x ambiguity type as treatment-coded columns (Homonymy, different sense is
    the reference level), as R's ``same * ambiguity_type``."""
    same = np.array([r.same_sense for r in rows], dtype=float)
    poly = np.array([r.ambiguity == POLYSEMY for r in rows], dtype=float)
    return np.column_stack([same, poly, same * poly])


def _distances(rows: Sequence[PairRow]) -> np.ndarray:
    return np.array([[r.distance_bert, r.distance_elmo] for r in rows], dtype=float)


REGRESSIONS: dict[str, tuple[str, Callable[[Sequence[PairRow]], np.ndarray]]] = {
    "distances": ("mean relatedness ~ BERT + ELMo", _distances),
    "categories": ("mean relatedness ~ same sense * ambiguity type", _categories),
    "both": (
        "mean relatedness ~ same sense * ambiguity type + BERT + ELMo",
        lambda rows: np.column_stack([_categories(rows), _distances(rows)]),
    ),
}


def r_squared_comparison(rows: Sequence[PairRow]) -> list[Regression]:
    """Ordinary least squares (statsmodels) of mean relatedness on each design."""
    from statsmodels.regression.linear_model import OLS  # heavy: only when asked

    if len(rows) < 8:
        raise ValueError(f"R^2 needs at least 8 sentence pairs, got {len(rows)}")
    y = np.array([r.mean for r in rows], dtype=float)
    out = []
    for key, (formula, design) in REGRESSIONS.items():
        x = design(rows)
        fit = OLS(y, np.column_stack([np.ones(len(y)), x])).fit()
        out.append(
            Regression(
                key, formula, PAPER_R2[key], float(fit.rsquared), float(fit.rsquared_adj), len(y)
            )
        )
    return out


def logistic_fit(x: np.ndarray, y: np.ndarray, *, iterations: int = 50) -> np.ndarray:
    """Unpenalised logistic regression by Newton-Raphson (IRLS); ``x`` without the
    intercept column. Returns the coefficients, intercept first."""
    design = np.column_stack([np.ones(len(y)), x])
    beta = np.zeros(design.shape[1])
    for _ in range(iterations):
        p = expit(design @ beta)  # no overflow where a sample separates the classes
        w = p * (1 - p) + 1e-12
        hessian = design.T @ (design * w[:, None])
        step = np.linalg.solve(hessian, design.T @ (y - p))
        beta = beta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    return beta


def loo_accuracy(x: np.ndarray, y: np.ndarray) -> float:
    """Leave-one-out accuracy of :func:`logistic_fit` (predict 1 where p >= 0.5)."""
    x = np.asarray(x, dtype=float).reshape(len(y), -1)
    y = np.asarray(y, dtype=float)
    keep = np.ones(len(y), dtype=bool)
    correct = 0
    for i in range(len(y)):
        keep[i] = False
        beta = logistic_fit(x[keep], y[keep])
        keep[i] = True
        predicted = float(beta[0] + x[i] @ beta[1:]) >= 0.0
        correct += predicted == bool(y[i])
    return correct / len(y)


def _classifier(key, description, x, y, paper) -> Classifier:
    y = np.asarray(y, dtype=float)
    majority = max(y.mean(), 1 - y.mean())
    return Classifier(key, description, paper, loo_accuracy(x, y), len(y), float(majority))


def sense_classifiers(rows: Sequence[PairRow]) -> list[Classifier]:
    """Footnote 6's two classifiers (leave-one-out over sentence pairs) and the same-sense
    classifier on the distances instead of mean relatedness."""
    if len({r.same_sense for r in rows}) < 2:
        raise ValueError("the classifiers need same-sense and different-sense pairs")
    means = np.array([[r.mean] for r in rows])
    same = [r.same_sense for r in rows]
    different = [r for r in rows if not r.same_sense]
    out = [
        _classifier(
            "same_sense",
            "same vs different sense, from mean relatedness",
            means,
            same,
            PAPER_ACCURACY["same_sense"],
        )
    ]
    if len({r.ambiguity for r in different}) == 2:
        out.append(
            _classifier(
                "ambiguity_type",
                "homonymy vs polysemy (different-sense pairs), from mean relatedness",
                np.array([[r.mean] for r in different]),
                [r.ambiguity == HOMONYMY for r in different],
                PAPER_ACCURACY["ambiguity_type"],
            )
        )
    out.append(
        _classifier(
            "same_sense_distances",
            "same vs different sense, from the BERT and ELMo distances",
            _distances(rows),
            same,
            None,
        )
    )
    return out


@dataclass(frozen=True)
class GroupSummary:
    group: str
    n: int
    mean: float
    sd: float
    median: float
    q1: float
    q3: float
    histogram: list[int]


def group_label(same_sense: bool, ambiguity: str) -> str:
    return f"{ambiguity}, {'same' if same_sense else 'different'} sense"


def summarise(group: str, values: Sequence[float], edges: Sequence[float]) -> GroupSummary:
    v = np.asarray(values, dtype=float)
    q1, median, q3 = np.percentile(v, [25, 50, 75])
    counts, _ = np.histogram(v, bins=np.asarray(edges, dtype=float))
    return GroupSummary(
        group,
        len(v),
        float(v.mean()),
        float(v.std(ddof=1)) if len(v) > 1 else 0.0,
        float(median),
        float(q1),
        float(q3),
        [int(c) for c in counts],
    )


FIGURE2_EDGES = [i / 20 for i in range(0, 17)]  # distances 0-0.8 as in the paper's axis
FIGURE3_EDGES = [i / 4 for i in range(0, 17)]  # mean relatedness 0-4


def _by_group(rows, value, edges, prefix="") -> list[GroupSummary]:
    out = []
    for ambiguity in (HOMONYMY, POLYSEMY):
        for same in (False, True):
            values = [value(r) for r in rows if r.ambiguity == ambiguity and r.same_sense == same]
            if values:
                out.append(summarise(prefix + group_label(same, ambiguity), values, edges))
    return out


def group_summaries(rows: Sequence[PairRow]) -> dict[str, list[GroupSummary]]:
    """Figure 2 (each model's distances) and Figure 3 (mean relatedness per pair), each by
    ambiguity type x same sense."""
    return {
        "figure2": _by_group(rows, lambda r: r.distance_bert, FIGURE2_EDGES, "BERT: ")
        + _by_group(rows, lambda r: r.distance_elmo, FIGURE2_EDGES, "ELMo: "),
        "figure3": _by_group(rows, lambda r: r.mean, FIGURE3_EDGES),
    }


@dataclass(frozen=True)
class DominanceSummary:
    group: str
    n: int
    mean: float
    sd: float
    spearman_with_relatedness: float | None


def dominance_summary(rows: Sequence[PairRow]) -> list[DominanceSummary]:
    """The dominance of sentence 2's sense (normed on different-sense pairs only), per
    ambiguity type: spread, and Spearman's rho with mean relatedness."""
    from annotations.official import spearman

    out = []
    for ambiguity in (HOMONYMY, POLYSEMY):
        pairs = [r for r in rows if r.ambiguity == ambiguity and r.dominance is not None]
        if not pairs:
            continue
        d = np.array([r.dominance for r in pairs], dtype=float)
        rho = spearman(d, [r.mean for r in pairs]) if len(pairs) > 2 else None
        out.append(
            DominanceSummary(
                ambiguity,
                len(pairs),
                float(d.mean()),
                float(d.std(ddof=1)) if len(d) > 1 else 0.0,
                rho,
            )
        )
    return out


# Section 5.2: judgments (not pair means) by same sense, and medians by group.
PAPER_JUDGMENTS = {
    "same sense": {"median": 4.0, "mean": 3.46, "sd": 1.02},
    "different sense": {"median": 1.0, "mean": 1.31, "sd": 1.45},
    group_label(True, HOMONYMY): {"median": 4.0},
    group_label(True, POLYSEMY): {"median": 4.0},
    group_label(False, HOMONYMY): {"median": 0.0},
    group_label(False, POLYSEMY): {"median": 2.0},
}


@dataclass(frozen=True)
class JudgmentFigure:
    group: str
    n: int
    median: float
    mean: float
    sd: float
    paper: dict[str, float]


def judgment_summary(judgments: Sequence[tuple[bool, str, float]]) -> list[JudgmentFigure]:
    """Section 5.2's medians, means and SDs of single judgments; ``judgments`` holds
    (same sense, ambiguity type, score) per judgment."""
    groups: dict[str, list[float]] = {}
    for same, ambiguity, score in judgments:
        groups.setdefault("same sense" if same else "different sense", []).append(score)
        groups.setdefault(group_label(same, ambiguity), []).append(score)
    out = []
    for name, paper in PAPER_JUDGMENTS.items():
        v = np.asarray(groups.get(name, []), dtype=float)
        if len(v):
            sd = float(v.std(ddof=1)) if len(v) > 1 else 0.0
            median = float(np.median(v))
            out.append(JudgmentFigure(name, len(v), median, float(v.mean()), sd, paper))
    return out
