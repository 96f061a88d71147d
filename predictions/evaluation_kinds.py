"""Scores for the relatedness and sense-choice kinds, as a pure module (no Django).

Relatedness runs report Spearman's rho between the model's scores and the mean human
relatedness (RAW-C compares cosine *distances*, so a good model has a negative rho: the
paper's BERT -0.58, ELMo -0.53). Sense-choice runs report accuracy and macro-F1 per test
set; macro-F1 follows the FOOL paper: the F1 of each sense of a word, averaged over the
word's senses, then over the words of the set.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence

import numpy as np

from annotations.official import spearman

RAWC_REPORTED = {"BERT": -0.58, "ELMo": -0.53}  # Trott & Bergen 2021, section 5.3


def relatedness_scores(predictions: Sequence[float], means: Sequence[float]) -> dict:
    return {"spearman": spearman(list(predictions), list(means)), "total": len(means)}


def macro_f1(gold: Sequence[Hashable], predicted: Sequence[Hashable]) -> float:
    """Mean F1 over the classes in ``gold`` (a class never predicted nor gold is absent)."""
    f1s = []
    for label in sorted(set(gold), key=str):
        tp = sum(g == label and p == label for g, p in zip(gold, predicted))
        fp = sum(g != label and p == label for g, p in zip(gold, predicted))
        fn = sum(g == label and p != label for g, p in zip(gold, predicted))
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return float(np.mean(f1s)) if f1s else 0.0


def _part(gold, predicted, words) -> dict:
    by_word: dict[Hashable, tuple[list, list]] = defaultdict(lambda: ([], []))
    for g, p, w in zip(gold, predicted, words):
        by_word[w][0].append(g)
        by_word[w][1].append(p)
    correct = sum(g == p for g, p in zip(gold, predicted))
    return {
        "accuracy": correct / len(gold),
        "correct": correct,
        "total": len(gold),
        "macro_f1": float(np.mean([macro_f1(g, p) for g, p in by_word.values()])),
    }


def sense_choice_scores(
    gold: Sequence[Hashable],
    predicted: Sequence[Hashable],
    words: Sequence[Hashable],
    sets: Sequence[str],
) -> dict:
    """Accuracy and FOOL's macro-F1 over all items and per set (``sets[i]`` names item i's
    set; "" when the source has none)."""
    if not gold:
        raise ValueError("nothing to score")
    result = _part(gold, predicted, words)
    per_set = {}
    for name in sorted(set(sets)):
        idx = [i for i, s in enumerate(sets) if s == name]
        parts = ([seq[i] for i in idx] for seq in (gold, predicted, words))
        per_set[name] = _part(*parts)
    return {**result, "per_set": per_set}


def residuals_by_group(
    y: Sequence[float], x: Sequence[Sequence[float]], groups: Sequence[Hashable]
) -> dict[Hashable, dict]:
    """Residuals of the least-squares fit ``y ~ 1 + x`` (x: one row of predictors per item),
    summarised per group: mean, SD (n-1) and n. RAW-C's Figure 4 groups by same sense x
    ambiguity type."""
    design = np.column_stack([np.ones(len(y)), np.asarray(x, dtype=float)])
    coef, *_ = np.linalg.lstsq(design, np.asarray(y, dtype=float), rcond=None)
    resid = np.asarray(y, dtype=float) - design @ coef
    out: dict[Hashable, dict] = {}
    for group in sorted(set(groups), key=str):
        values = resid[[g == group for g in groups]]
        sd = float(values.std(ddof=1)) if len(values) > 1 else 0.0
        out[group] = {"mean": float(values.mean()), "sd": sd, "n": int(len(values))}
    return out
