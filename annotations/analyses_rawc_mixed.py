"""RAW-C's mixed-effects model comparisons (Trott & Bergen 2021, sections 5.1 and 5.2) as
pure functions over plain rows, fitted with statsmodels' MixedLM by maximum likelihood and
compared by likelihood-ratio tests (chi-squared, one degree of freedom per added term).

What differs from the paper's lme4 models, because statsmodels fits one grouping factor
plus variance components:

- Human judgments (5.2): crossed random intercepts for subjects and words (variance
  components in a single group), but no by-subject or by-word random slopes.
- Cosine distances (5.1): words are the groups, with a by-word random slope for same
  sense as in the paper; the language model (ELMo or BERT) is a fixed effect instead of a
  random intercept (two levels give no usable variance estimate).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .analyses_rawc import POLYSEMY, PairRow


@dataclass(frozen=True)
class JudgmentRow:
    subject: str
    word: str
    score: float
    same_sense: bool
    ambiguity: str
    distance_bert: float
    distance_elmo: float
    word_class: str = ""


@dataclass(frozen=True)
class Comparison:
    key: str
    question: str
    added: str
    paper_chi2: float
    chi2: float
    p: float
    coefficient: float  # of the added term in the full model
    paper_coefficient: float | None = None


# Section 5.2 (judgments) and 5.1 (distances): added term, paper's chi^2 and beta.
HUMAN_TESTS = [
    ("same_sense", "Same- vs different-sense uses?", "same", 207.11, 1.94),
    ("interaction", "Same sense x ambiguity type?", "same:poly", 25.45, None),
    ("bert", "BERT's distance beyond the categories?", "bert", 36.19, None),
    ("elmo", "ELMo's distance beyond the categories?", "elmo", 16.92, None),
]
DISTANCE_TESTS = [
    ("distance_same_sense", "Same-sense uses closer?", "same", 143.72, -0.099),
    ("distance_interaction", "Same sense x ambiguity type?", "same:poly", 2.19, None),
]


def _columns(rows, distances: bool) -> dict[str, np.ndarray]:
    same = np.array([r.same_sense for r in rows], dtype=float)
    poly = np.array([r.ambiguity == POLYSEMY for r in rows], dtype=float)
    cols = {
        "verb": np.array([r.word_class == "V" for r in rows], dtype=float),
        "same": same,
        "poly": poly,
        "same:poly": same * poly,
    }
    if distances:
        cols["bert"] = np.array([r.distance_bert for r in rows], dtype=float)
        cols["elmo"] = np.array([r.distance_elmo for r in rows], dtype=float)
    return cols


def _lrt(fit_with, terms: list[str], added: str) -> tuple[float, float, float]:
    from scipy.stats import chi2
    from statsmodels.tools.sm_exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        # variances at zero (the boundary) and optimizer retries are expected here; the
        # fits are checked against the paper's statistics in the tests
        warnings.simplefilter("ignore", ConvergenceWarning)
        full = fit_with(terms)
        reduced = fit_with([t for t in terms if t != added])
    statistic = max(0.0, float(2 * (full.llf - reduced.llf)))
    return statistic, float(chi2.sf(statistic, 1)), float(full.fe_params[terms.index(added) + 1])


def _human_terms(added: str, cols: dict[str, np.ndarray]) -> list[str]:
    terms = ["verb", "same", "bert", "elmo"]
    if added != "same":
        terms = ["verb", "same", "poly", "same:poly", "bert", "elmo"]
    # a constant column (e.g. nouns only) would make the design singular
    return [t for t in terms if np.ptp(cols[t]) > 0 or t == added]


def human_comparisons(rows: Sequence[JudgmentRow]) -> list[Comparison]:
    """Section 5.2 with the paper's random effects: relatedness ~ part of speech + ... with
    crossed random intercepts for subjects and words, by-subject slopes for same sense and
    ambiguity type and by-word slopes for same sense (correlated within each factor, as
    lme4's ``(1 + same + ambiguity | subject) + (1 + same | word)``); each test adds one term
    to the model named in the paper. Fitted by :mod:`annotations.mixed_models`."""
    from .mixed_models import factor, fit, likelihood_ratio

    if len(rows) < 20:
        raise ValueError(f"the mixed models need at least 20 judgments, got {len(rows)}")
    cols = _columns(rows, distances=True)
    y = np.array([r.score for r in rows], dtype=float)
    one = np.ones(len(y))
    factors = [
        factor("subject", [r.subject for r in rows], [one, cols["same"], cols["poly"]]),
        factor("word", [r.word for r in rows], [one, cols["same"]]),
    ]

    def fit_with(terms: list[str], start=None):
        return fit(y, np.column_stack([one] + [cols[t] for t in terms]), factors, start=start)

    out = []
    for key, question, added, paper, beta in HUMAN_TESTS:
        terms = _human_terms(added, cols)
        full = fit_with(terms)
        reduced = fit_with([t for t in terms if t != added], start=full.theta)
        statistic, p = likelihood_ratio(full, reduced)
        coef = float(full.beta[terms.index(added) + 1])
        out.append(Comparison(key, question, added, paper, statistic, p, coef, beta))
    return out


def distance_comparisons(rows: Sequence[PairRow]) -> list[Comparison]:
    """Section 5.1: cosine distance (both models stacked) ~ part of speech + model + ...,
    words as groups with a random intercept and a by-word random slope for same sense."""
    from statsmodels.regression.mixed_linear_model import MixedLM

    if len(rows) < 10:
        raise ValueError(f"the distance models need at least 10 pairs, got {len(rows)}")
    stacked = list(rows) + list(rows)
    cols = _columns(stacked, distances=False)
    cols["bert_model"] = np.array([0.0] * len(rows) + [1.0] * len(rows))
    y = np.array([r.distance_elmo for r in rows] + [r.distance_bert for r in rows])
    groups = np.array([r.word for r in stacked])
    exog_re = np.column_stack([np.ones(len(y)), cols["same"]])

    def fit_with(terms: list[str]):
        x = np.column_stack([np.ones(len(y))] + [cols[t] for t in terms])
        return MixedLM(y, x, groups=groups, exog_re=exog_re).fit(reml=False)

    out = []
    for key, question, added, paper, beta in DISTANCE_TESTS:
        terms = ["verb", "bert_model", "same"]
        if added == "same:poly":
            terms += ["poly", "same:poly"]
        terms = [t for t in terms if np.ptp(cols[t]) > 0 or t == added]
        statistic, p, coef = _lrt(fit_with, terms, added)
        out.append(Comparison(key, question, added, paper, statistic, p, coef, beta))
    return out
