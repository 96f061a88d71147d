"""The ranking stage of the quality predictor (:mod:`.stacking`): the pair-aware ridge
ranker (``RankModel``) antisymmetrised within each story, the optional story-level model
(``LevelModel``) and the setup context of stage two (``SetupContext``).

Predict never reads labels (choices / average / stdev).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

import numpy as np

from annotations.official import accepted_band

from .features import (
    contrast_features,
    partner_index,
    setup_sense_groups,
    setup_views,
)
from .texts import SampleFields, field


def antisymmetrise(
    scores: np.ndarray, samples: Sequence[SampleFields], center: float = 0.0
) -> np.ndarray:
    """``(s_i - s_partner) / 2`` per story; ``s_i - center`` where a story has one sense."""
    partners = partner_index(samples)
    return np.array(
        [
            (scores[i] - scores[p]) / 2 if p is not None else scores[i] - center
            for i, p in enumerate(partners)
        ],
        dtype=np.float64,
    )


def label_bounds(samples: Sequence[SampleFields]) -> tuple[np.ndarray, np.ndarray]:
    """Open interval (lo, hi) of predictions counted correct by the official rule
    (:func:`annotations.official.accepted_band` of each sample's labels).

    Only used on labelled (training/tuning) samples.
    """
    bands = np.array([accepted_band(s["choices"]) for s in samples], dtype=np.float64)
    bands = bands.reshape(-1, 2)
    return bands[:, 0], bands[:, 1]


@dataclass
class RankModel:
    """Ridge on pair-aware MiniLM features -> antisymmetric preference score."""

    alpha: float = 1.0
    mean_: np.ndarray | None = None
    scale_: np.ndarray | None = None
    coef_: np.ndarray | None = None
    intercept_: float = 0.0
    raw_mean_: np.ndarray | None = None

    def fit(self, samples: Sequence[SampleFields], raw: np.ndarray) -> RankModel:
        """Fit on labelled samples; ``raw`` is :func:`features.raw_features` of them."""
        from sklearn.linear_model import Ridge

        self.raw_mean_ = raw.mean(0)
        X = contrast_features(samples, raw, self.raw_mean_)
        y = np.array([float(s["average"]) for s in samples])
        partners = partner_index(samples)
        pairs = [(i, p) for i, p in enumerate(partners) if p is not None]
        keep = [i for i, _ in pairs]
        target = np.array([y[i] - y[p] for i, p in pairs])
        self.mean_, self.scale_ = X.mean(0), X.std(0) + 1e-9
        ridge = Ridge(alpha=self.alpha).fit(
            (X[keep] - self.mean_) / self.scale_,
            target,
            sample_weight=self.pair_weights([(samples[i], samples[p]) for i, p in pairs]),
        )
        self.coef_, self.intercept_ = ridge.coef_, float(ridge.intercept_)
        return self

    def pair_weights(self, pairs: Sequence[tuple[SampleFields, SampleFields]]) -> np.ndarray | None:
        """The ridge's weight of each training pair (a sample and the other sense of its
        story, in ``fit``'s order); None: all equal, as shipped (a subclass may weigh them)."""
        return None

    def score(self, samples: Sequence[SampleFields], raw: np.ndarray) -> np.ndarray:
        """Antisymmetric preference of each sample's sense over the other sense (~[-2, 2])."""
        X = contrast_features(samples, raw, self.raw_mean_)
        r = ((X - self.mean_) / self.scale_) @ self.coef_ + self.intercept_
        return antisymmetrise(r, samples) if len(samples) else r

    def to_dict(self) -> dict:
        return {
            k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in self.__dict__.items()
        }

    @classmethod
    def from_dict(cls, d: dict) -> RankModel:
        arrays = {"mean_", "scale_", "coef_", "raw_mean_"}
        fields: dict[str, Any] = {
            k: (np.array(v) if k in arrays and v is not None else v) for k, v in d.items()
        }
        return cls(**fields)


def _symmetric_features(
    samples: Sequence[SampleFields], raw: np.ndarray, fallback: np.ndarray | None
) -> np.ndarray:
    """Pair means of ``raw`` (+ their setup/sense means, has-ending gates and the flag)."""
    partners = partner_index(samples)
    other = np.stack(
        [
            raw[p] if p is not None else (fallback if fallback is not None else raw[i])
            for i, p in enumerate(partners)
        ]
    )
    mean = (raw + other) / 2
    groups = setup_sense_groups(samples)
    setup = np.stack([mean[g].mean(0) for g in groups])
    has_end = np.array([[1.0 if field(s, "ending") else 0.0] for s in samples])
    return np.hstack([mean, setup, mean * has_end, has_end])


@dataclass
class LevelModel:
    """Ridge on symmetric pair features -> how plausible the story finds *both* senses.

    Target: the mean of the two senses' ratings of a story; alpha picked by GroupKFold
    (by homonym) on the training split itself. Output is centred (a symmetric component).
    """

    alphas: tuple = (1.0, 10.0, 100.0, 1000.0)
    alpha: float = 100.0
    mean_: np.ndarray | None = None
    scale_: np.ndarray | None = None
    coef_: np.ndarray | None = None
    intercept_: float = 0.0
    raw_mean_: np.ndarray | None = None

    def fit(self, samples: Sequence[SampleFields], raw: np.ndarray) -> LevelModel:
        from scipy.stats import spearmanr
        from sklearn.linear_model import Ridge
        from sklearn.model_selection import GroupKFold

        self.raw_mean_ = raw.mean(0)
        X = _symmetric_features(samples, raw, self.raw_mean_)
        y = np.array([float(s["average"]) for s in samples])
        partners = partner_index(samples)
        target = np.array(
            [(y[i] + y[p]) / 2 if p is not None else y[i] for i, p in enumerate(partners)]
        )
        self.mean_, self.scale_ = X.mean(0), X.std(0) + 1e-9
        Xs = (X - self.mean_) / self.scale_
        groups = [s["homonym"] for s in samples]
        if len(set(groups)) >= 5:
            scores = []
            for a in self.alphas:
                oof = np.zeros(len(y))
                for fi, ti in GroupKFold(5).split(Xs, groups=groups):
                    oof[ti] = Ridge(alpha=a).fit(Xs[fi], target[fi]).predict(Xs[ti])
                scores.append(spearmanr(oof, target)[0])
            self.alpha = float(self.alphas[int(np.nanargmax(scores))])
        ridge = Ridge(alpha=self.alpha).fit(Xs, target)
        self.coef_, self.intercept_ = ridge.coef_, float(ridge.intercept_)
        return self

    def score(self, samples: Sequence[SampleFields], raw: np.ndarray) -> np.ndarray:
        """Centred predicted story level (same value for both senses of a story)."""
        X = _symmetric_features(samples, raw, self.raw_mean_)
        return ((X - self.mean_) / self.scale_) @ self.coef_

    def to_dict(self) -> dict:
        return {
            k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in self.__dict__.items()
        }

    @classmethod
    def from_dict(cls, d: dict) -> LevelModel:
        arrays = {"mean_", "scale_", "coef_", "raw_mean_"}
        d = {k: (tuple(v) if k == "alphas" else v) for k, v in d.items()}
        fields: dict[str, Any] = {
            k: (np.array(v) if k in arrays and v is not None else v) for k, v in d.items()
        }
        return cls(**fields)


def setup_context(samples: Sequence[SampleFields], z: np.ndarray) -> np.ndarray:
    """Columns of :class:`SetupContext`, shape (n, 5), from antisymmetric scores ``z``: the
    score; the mean score of the same sense in the setup's other stories; the score of the
    same sense on the setup's other ending and on its story without an ending, and the score
    again, these three for stories with an ending only (0 elsewhere). Antisymmetric like
    ``z``: the two senses of a story see mirrored setups."""
    z = np.asarray(z, dtype=np.float64)
    other, bare = setup_views(samples)
    groups = setup_sense_groups(samples)
    cols = np.zeros((len(samples), 5))
    for i, group in enumerate(groups):
        rest = [j for j in group if j != i]
        has_end = bool(field(samples[i], "ending"))
        cols[i] = [
            z[i],
            z[rest].mean() if rest else 0.0,
            z[other[i]] if other[i] is not None else 0.0,
            z[bare[i]] if bare[i] is not None else 0.0,
            z[i] if has_end else 0.0,
        ]
    return cols


@dataclass
class SetupContext:
    """Stage two of the ranker: a ridge (alpha 1, no intercept) on :func:`setup_context` of
    grouped out-of-fold ranker scores, fitted to half the pair difference of the mean
    ratings. An ending's score is read against the same sense's scores on the setup's other
    stories (whose ratings go together: the story without an ending agrees with each
    ending's at r = 0.62 on train+dev). The default coefficients leave the score as it is."""

    coef_: list[float] = dc_field(default_factory=lambda: [1.0, 0.0, 0.0, 0.0, 0.0])

    def fit(self, samples: Sequence[SampleFields], z: np.ndarray) -> SetupContext:
        from sklearn.linear_model import Ridge

        y = np.array([float(s["average"]) for s in samples])
        pairs = [(i, p) for i, p in enumerate(partner_index(samples)) if p is not None]
        cols = setup_context(samples, z)[[i for i, _ in pairs]]
        target = np.array([(y[i] - y[p]) / 2 for i, p in pairs])
        self.coef_ = [
            float(c) for c in Ridge(alpha=1.0, fit_intercept=False).fit(cols, target).coef_
        ]
        return self

    def apply(self, samples: Sequence[SampleFields], z: np.ndarray) -> np.ndarray:
        return setup_context(samples, z) @ np.array(self.coef_)
