"""Model selection by cross-validation with folds grouped by homonym (pure: no Django).

A configuration is evaluated through one callable, ``fit_predict(fit, test) -> scores``:
it fits on the labelled ``fit`` samples and returns one 1-5 score per ``test`` sample, whose
labels have been removed before the call. Every sample of a homonym lies in one fold, so a
score always comes from a model that never saw its homonym (the withheld test split's
homonyms are unseen too). Folds are re-drawn per seed; each fold is scored with the
official metrics (:func:`predictions.evaluation.score_lists`).

Nesting: whatever a configuration tunes itself (a backend's ``prepare``: calibration maps,
ridge alphas, a tuned constant) happens inside ``fit_predict`` and so sees the training
folds only. :func:`select_fit_predict` turns a set of candidate configurations into one
configuration that picks its candidate by an inner grouped CV of the fit samples, so
``cross_validate(samples, select_fit_predict(...))`` is a nested CV of the selection itself.

The interval: fold x seed scores are not independent (the folds of one seed share
training data, and seeds reuse the same samples), so the plain t interval of their mean is
too narrow. We report the corrected resampled t interval of Nadeau & Bengio (2003), as
Bouckaert & Frank (2004) use it for repeated k-fold CV:
``mean +- t(0.975, n-1) * sd * sqrt(1/n + n_test/n_fit)`` over the n = folds x seeds scores.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

from .evaluation import score_lists

__all__ = [
    "LABEL_FIELDS",
    "FitPredict",
    "FoldScore",
    "Interval",
    "CVResult",
    "group_of",
    "grouped_folds",
    "strip_labels",
    "corrected_interval",
    "cross_validate",
    "select_fit_predict",
    "paired_difference",
]

LABEL_FIELDS = ("choices", "average", "stdev", "nonsensical")
FitPredict = Callable[[list[dict], list[dict]], Sequence[float]]


def group_of(sample: Mapping) -> str:
    """The grouping key: the homonym, case- and space-insensitive."""
    return str(sample.get("homonym") or "").strip().lower()


def grouped_folds(groups: Sequence[str], n_folds: int, seed: int) -> list[int]:
    """Fold index (0..n_folds-1) per item; every item of a group in the same fold.

    Groups are shuffled with ``seed``, then placed largest first into the fold holding the
    fewest items so far (ties: the lower fold), so fold sizes stay close. Deterministic for
    a given seed and group list.
    """
    distinct = sorted(set(groups))
    if n_folds < 2:
        raise ValueError("need at least 2 folds")
    if len(distinct) < n_folds:
        raise ValueError(f"{len(distinct)} groups cannot fill {n_folds} folds")
    size: dict[str, int] = {}
    for g in groups:
        size[g] = size.get(g, 0) + 1
    random.Random(seed).shuffle(distinct)
    distinct.sort(key=lambda g: -size[g])  # stable: equal sizes keep the seeded order
    load = [0] * n_folds
    fold_of: dict[str, int] = {}
    for g in distinct:
        target = min(range(n_folds), key=lambda k: (load[k], k))
        fold_of[g] = target
        load[target] += size[g]
    return [fold_of[g] for g in groups]


def strip_labels(sample: Mapping) -> dict:
    """A copy of ``sample`` without any label field."""
    return {k: v for k, v in sample.items() if k not in LABEL_FIELDS}


@dataclass(frozen=True)
class Interval:
    mean: float
    sd: float
    n: int
    low: float
    high: float
    kind: str = "corrected resampled t (Nadeau-Bengio), 95%"

    def as_dict(self) -> dict:
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in asdict(self).items()}


def corrected_interval(
    values: Sequence[float], test_fit_ratio: float, level: float = 0.95
) -> Interval:
    """Mean and the corrected resampled t interval of fold scores (see the module doc).

    ``test_fit_ratio``: n_test / n_fit of a fold (1 / (k - 1) for k equal folds); 0 gives
    the plain t interval of the mean. One value gives a zero-width interval.
    """
    from scipy.stats import t

    n = len(values)
    if n == 0:
        raise ValueError("no scores")
    mean = sum(values) / n
    if n == 1:
        return Interval(mean, 0.0, 1, mean, mean)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = float(t.ppf(0.5 + level / 2, n - 1)) * sd * math.sqrt(1 / n + test_fit_ratio)
    return Interval(mean, sd, n, mean - half, mean + half)


@dataclass(frozen=True)
class FoldScore:
    seed: int
    fold: int
    n_fit: int
    n_test: int
    accuracy: float
    spearman: float | None
    seconds: float


@dataclass
class CVResult:
    folds: list[FoldScore] = field(default_factory=list)
    pooled: list[dict] = field(default_factory=list)  # per seed: metrics of all OOF scores

    def summary(self) -> dict:
        """Mean and interval of accuracy and Spearman over the fold x seed scores, plus the
        mean over seeds of the pooled out-of-fold figures."""
        ratio = sum(f.n_test / f.n_fit for f in self.folds) / len(self.folds)
        out: dict = {}
        for metric in ("accuracy", "spearman"):
            values = [getattr(f, metric) for f in self.folds if getattr(f, metric) is not None]
            out[metric] = corrected_interval(values, ratio).as_dict() if values else None
            pooled = [p[metric] for p in self.pooled if p[metric] is not None]
            out[f"pooled_{metric}"] = round(sum(pooled) / len(pooled), 4) if pooled else None
        out["n_folds_x_seeds"] = len(self.folds)
        out["seconds"] = round(sum(f.seconds for f in self.folds), 1)
        return out

    def as_dict(self) -> dict:
        return {
            "summary": self.summary(),
            "folds": [asdict(f) for f in self.folds],
            "pooled_per_seed": self.pooled,
        }


def _check_disjoint(fit: Sequence[Mapping], test: Sequence[Mapping]) -> None:
    if {str(s["id"]) for s in fit} & {str(s["id"]) for s in test}:
        raise AssertionError("a sample is both fitted on and scored")
    if {group_of(s) for s in fit} & {group_of(s) for s in test}:
        raise AssertionError("a homonym is both fitted on and scored")


def cross_validate(
    samples: Sequence[Mapping],
    fit_predict: FitPredict,
    *,
    folds: int = 5,
    seeds: Sequence[int] = (0,),
    log: Callable[[str], None] = print,
) -> CVResult:
    """Grouped k-fold CV of ``fit_predict`` over labelled ``samples`` (unique ``id``s),
    repeated for each seed; returns every fold's official scores."""
    samples = [dict(s) for s in samples]
    if len({str(s["id"]) for s in samples}) != len(samples):
        raise ValueError("sample ids must be unique (prefix them with their split)")
    groups = [group_of(s) for s in samples]
    result = CVResult()
    for seed in seeds:
        assignment = grouped_folds(groups, folds, seed)
        oof: list[float | None] = [None] * len(samples)
        for k in range(folds):
            test_idx = [i for i, f in enumerate(assignment) if f == k]
            fit = [samples[i] for i, f in enumerate(assignment) if f != k]
            test = [samples[i] for i in test_idx]
            _check_disjoint(fit, test)
            started = time.perf_counter()
            test_input = [strip_labels(s) for s in test]
            preds = [float(p) for p in fit_predict(fit, test_input)]  # type: ignore[arg-type]
            if len(preds) != len(test):
                raise ValueError(f"{len(preds)} predictions for {len(test)} samples")
            s = score_lists([t["choices"] for t in test], preds)
            row = FoldScore(
                seed,
                k,
                len(fit),
                len(test),
                s.accuracy,
                s.spearman,
                round(time.perf_counter() - started, 1),
            )
            result.folds.append(row)
            for i, p in zip(test_idx, preds):
                oof[i] = p
            rho = "n/a" if s.spearman is None else f"{s.spearman:.4f}"
            log(
                f"seed {seed} fold {k + 1}/{folds}: fit {len(fit)}, test {len(test)}, "
                f"accuracy {s.accuracy:.4f}, spearman {rho}, {row.seconds:.0f} s"
            )
        filled = [p for p in oof if p is not None]  # every sample is in one test fold
        pooled = score_lists([s["choices"] for s in samples], filled)
        # per-fold constants pooled would rank by fold: no Spearman where a fold has none
        ranked = all(f.spearman is not None for f in result.folds if f.seed == seed)
        result.pooled.append(
            {
                "seed": seed,
                "accuracy": pooled.accuracy,
                "spearman": pooled.spearman if ranked else None,
            }
        )
    return result


def select_fit_predict(
    candidates: Mapping[str, FitPredict],
    *,
    inner_folds: int = 5,
    seed: int = 0,
    metric: str = "spearman",
    picks: list[str] | None = None,
    log: Callable[[str], None] = print,
) -> FitPredict:
    """A configuration that, given fit samples, picks the candidate with the best mean
    ``metric`` in a grouped ``inner_folds``-fold CV of those fit samples only, then fits it
    on all of them. The names picked are appended to ``picks``."""

    def fit_predict(fit: list[dict], test: list[dict]) -> Sequence[float]:
        means = {}
        for name, candidate in candidates.items():
            inner = cross_validate(
                fit, candidate, folds=inner_folds, seeds=(seed,), log=lambda _line: None
            )
            values = [getattr(f, metric) for f in inner.folds]
            values = [v for v in values if v is not None]
            means[name] = sum(values) / len(values) if values else float("-inf")
        best = max(means, key=lambda name: means[name])
        if picks is not None:
            picks.append(best)
        log(f"  inner CV picked {best} ({metric} {means[best]:.4f})")
        return candidates[best](fit, test)

    return fit_predict


def paired_difference(a: Sequence[Mapping], b: Sequence[Mapping], metric: str) -> Interval | None:
    """What configuration ``a`` adds over ``b``: the interval of the per-fold differences
    ``a - b`` of ``metric`` on the folds both were scored on (same seed and fold number, so
    the same samples), with the same correction as :func:`corrected_interval`. ``a`` and
    ``b`` are fold rows (``FoldScore`` as dicts). None without a common defined fold."""
    rows_b = {(r["seed"], r["fold"]): r for r in b}
    diffs, ratios = [], []
    for r in a:
        other = rows_b.get((r["seed"], r["fold"]))
        if other is None or r[metric] is None or other[metric] is None:
            continue
        if other["n_test"] != r["n_test"]:
            raise ValueError("folds differ: compare results of the same samples and seeds")
        diffs.append(r[metric] - other[metric])
        ratios.append(r["n_test"] / r["n_fit"])
    if not diffs:
        return None
    return corrected_interval(diffs, sum(ratios) / len(ratios))
