"""The final quality predictor: pair-aware ranker(s) + a calibrated mapping to ratings.

Pipeline (``QualityPredictor``):

1. ``RankModel``: a ridge regression on :func:`features.contrast_features`, fitted on *train*
   to predict ``average - average(other sense of the story)``; its output is
   antisymmetrised within each story: ``z_i = (r_i - r_partner) / 2``.
   ``SetupContext`` (stage two) then re-weighs that score with the scores of the same sense
   in the setup's other stories (its other ending, its story without an ending), learnt
   from grouped out-of-fold ranker scores of *train*.
2. optionally a fine-tuned MiniLM (trained on train): the bi-encoder of :mod:`.biencoder`
   (the shipped choice) or the cross-encoder of :mod:`.crossencoder`, antisymmetrised the
   same way and added with a fixed weight.
3. ``Calibrator`` (fitted on grouped out-of-fold scores of *train* by default; on the tuning
   split only with ``oof_calibration=False``): the weight of each component in a
   standardised sum, and a strictly increasing map ``mid + amp * tanh(z / scale) + slope * z``
   whose parameters maximise the official accuracy. The small linear term keeps saturated
   predictions apart, so the ranking (Spearman) of ``z`` survives the mapping.

Predict never reads labels (choices / average / stdev).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field
from pathlib import Path
from typing import Any

import numpy as np

from annotations.official import accepted_band

from .features import (
    contrast_features,
    hub_features,
    partner_index,
    raw_features,
    reference_means,
    setup_sense_groups,
    setup_views,
)
from .texts import SampleFields, field

__all__ = [
    "antisymmetrise",
    "label_bounds",
    "RankModel",
    "LevelModel",
    "setup_context",
    "SetupContext",
    "finetuned_components",
    "Calibrator",
    "QualityPredictor",
    "train_oof_components",
    "finetuned_calibrator",
]


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


@dataclass
class Calibrator:
    """Weighted sum of standardised components, then ``mid + amp*tanh(z/scale) + slope*z``."""

    weights: list[float] = dc_field(default_factory=lambda: [1.0])
    stds: list[float] = dc_field(default_factory=lambda: [1.0])
    mid: float = 3.1
    amp: float = 1.0
    scale: float = 1.0
    slope: float = 0.05

    def combine(self, comps: np.ndarray) -> np.ndarray:
        """comps: shape (n, k) -> combined score z, shape (n,)."""
        comps = np.asarray(comps, dtype=np.float64).reshape(len(comps), -1)
        return (comps / np.array(self.stds)) @ np.array(self.weights)

    def apply(self, comps: np.ndarray) -> np.ndarray:
        z = self.combine(comps)
        return self.mid + self.amp * np.tanh(z / self.scale) + self.slope * z

    def fit(
        self, comps: np.ndarray, samples: Sequence[SampleFields], weight_grid: Sequence[float] = ()
    ) -> Calibrator:
        """Choose component weights (max Spearman) then the map (max accuracy) on ``samples``."""
        from scipy.stats import spearmanr

        comps = np.asarray(comps, dtype=np.float64).reshape(len(comps), -1)
        self.stds = [float(s) + 1e-9 for s in comps.std(0)]
        y = np.array([float(s["average"]) for s in samples])
        k = comps.shape[1]
        self.weights = [1.0] + [0.0] * (k - 1)
        grid = list(weight_grid) or list(np.linspace(0.0, 1.0, 11))
        for _ in range(2):  # coordinate ascent on Spearman, first weight fixed at 1
            for j in range(1, k):

                def rho(w: float, j: int = j) -> float:
                    trial = list(self.weights)
                    trial[j] = w
                    return spearmanr(self.combine_with(comps, trial), y)[0]

                self.weights[j] = float(grid[int(np.nanargmax([rho(w) for w in grid]))])
        self.fit_map(self.combine(comps), samples)
        return self

    def combine_with(self, comps: np.ndarray, weights: Sequence[float]) -> np.ndarray:
        return (comps / np.array(self.stds)) @ np.array(weights)

    def fit_map(self, z: np.ndarray, samples: Sequence[SampleFields]) -> None:
        """Set ``mid``, ``amp``, ``scale`` and ``slope`` (a grid search) so that the mapped
        combined scores ``z`` of labelled ``samples`` are most often inside their accepted
        band (the official accuracy); the weights are left as they are."""
        lo, hi = label_bounds(samples)
        sd = float(np.std(z)) + 1e-9
        best = (-1, 0.0, 0.0, 0.0, 0.0)
        for slope in np.array([0.02, 0.05, 0.1]) / sd:
            for scale in sd * np.array([0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5]):
                t = np.tanh(z / scale)
                for amp in np.arange(0.6, 1.45, 0.05):
                    for mid in np.arange(2.8, 3.45, 0.025):
                        p = mid + amp * t + slope * z
                        acc = int(((p > lo) & (p < hi)).sum())
                        if acc > best[0]:
                            best = (acc, float(mid), float(amp), float(scale), float(slope))
        _, self.mid, self.amp, self.scale, self.slope = best

    def to_dict(self) -> dict:
        return dict(self.__dict__)


class QualityPredictor:
    """Predict the mean plausibility rating (1-5) of AmbiStory samples.

    ``fit(train, tune)``: features + ridge ranker on ``train``; optional scores of a fine-tuned
    MiniLM (``finetuned``: a loaded bi-encoder (the default choice) or cross-encoder trained on
    train, or its directory; or a list of them, e.g. one per fine-tuning seed, whose ratings
    are averaged); the calibrator on grouped out-of-fold scores of ``train`` (by
    default; ``tune``, labels unread, only fixes the score scale) or on ``tune`` with
    ``oof_calibration=False``.
    """

    #: the ranker's class: a subclass may swap in another model with RankModel's fit/score
    #: (used for the ranker itself and for its out-of-fold scores)
    rank_class: type[RankModel] = RankModel
    #: the ranker's second stage (a subclass may read fewer or other setup columns)
    context_class: type[SetupContext] = SetupContext

    def __init__(self, cache_dir: str | Path | None = None) -> None:
        self.cache_dir = cache_dir
        self.rank = self.rank_class()
        self.level: LevelModel | None = None
        self.context: SetupContext | None = None
        self.calibrator = Calibrator()
        self.finetuned_dirs: list[str] = []  # one or more (their scores are averaged)
        self._finetuned: list[Any] = []
        self.reference: dict[str, list[float]] | None = None

    def raw(self, samples: Sequence[SampleFields]) -> np.ndarray:
        """Raw per-sample features (+ hubness-corrected ones once a reference is set)."""
        raw = raw_features(samples, self.cache_dir)
        if self.reference is None:
            return raw
        return np.hstack([raw, hub_features(samples, self.reference, self.cache_dir)])

    @property
    def finetuned_dir(self) -> str | None:
        """The first fine-tuned model's directory (None without one)."""
        return self.finetuned_dirs[0] if self.finetuned_dirs else None

    def _finetuned_models(self) -> list[Any]:
        if not self._finetuned and self.finetuned_dirs:
            from .biencoder import load_trained

            self._finetuned = [load_trained(d) for d in self.finetuned_dirs]
        return self._finetuned

    def _finetuned_ratings(self, samples: Sequence[SampleFields]) -> np.ndarray | None:
        """The fine-tuned models' ratings, averaged over the models (None without one)."""
        models = self._finetuned_models()
        if not models:
            return None
        return np.mean([np.array(m.predict(samples)) for m in models], axis=0)

    def components(self, samples: Sequence[SampleFields]) -> np.ndarray:
        """Scores per component, shape (n, k): ranker z, [level], [fine-tuned z, level].

        Labels are not read."""
        samples = list(samples)
        raw = self.raw(samples)
        z = self.rank.score(samples, raw)
        cols = [self.context.apply(samples, z) if self.context is not None else z]
        if self.level is not None:
            cols.append(self.level.score(samples, raw))
        tuned = self._finetuned_ratings(samples)
        if tuned is not None:
            cols += list(finetuned_components(tuned, samples).T)
        return np.stack(cols, 1)

    def fit(
        self,
        train_samples: Sequence[SampleFields],
        tune_samples: Sequence[SampleFields] | None = None,
        *,
        finetuned: Any = None,
        alpha: float = 1.0,
        with_level: bool = False,
        with_hub: bool = True,
        oof_calibration: bool = True,
        finetuned_weight: float = 0.5,
        with_context: bool = True,
    ) -> QualityPredictor:
        """Fit the ranker (and level model) on ``train_samples``, then the calibrator.

        ``oof_calibration`` (default): the component weights and the rating map are fitted on
        grouped out-of-fold scores of ``train_samples`` (GroupKFold(5) by homonym), so no labels
        of ``tune_samples`` are needed; ``tune_samples`` (labels unread) only fix the score scale.
        The fine-tuned model's pair difference enters with weight ``finetuned_weight`` (in standard
        deviations of the standardised ranker score). Without ``oof_calibration`` the
        calibrator is fitted on the labelled ``tune_samples`` (or train) as before.
        ``with_context`` (with ``oof_calibration``): the ranker's :class:`SetupContext`,
        fitted on the same out-of-fold scores.
        """
        train_samples = list(train_samples)
        self.reference = reference_means(train_samples, self.cache_dir) if with_hub else None
        raw = self.raw(train_samples)
        self.rank = self.rank_class(alpha=alpha).fit(train_samples, raw)
        self.level = LevelModel().fit(train_samples, raw) if with_level else None
        self.context = None
        tuned = finetuned if isinstance(finetuned, (list, tuple)) else [finetuned]
        tuned = [t for t in tuned if t is not None]
        if tuned and all(isinstance(t, (str, Path)) for t in tuned):
            self.finetuned_dirs, self._finetuned = [str(t) for t in tuned], []
        elif tuned:
            self.finetuned_dirs, self._finetuned = [], list(tuned)
        tune = list(tune_samples) if tune_samples is not None else train_samples
        if not oof_calibration or len({s["homonym"] for s in train_samples}) < 5:
            self.calibrator = Calibrator().fit(self.components(tune), tune)
            return self
        oof = train_oof_components(
            train_samples, raw, alpha=alpha, with_level=with_level, rank_class=self.rank_class
        )
        if with_context:
            self.context = self.context_class().fit(train_samples, oof[:, 0])
            oof[:, 0] = self.context.apply(train_samples, oof[:, 0])
        base = Calibrator().fit(oof, train_samples)
        ref = self.components(tune) if tune_samples is not None or self._finetuned_models() else oof
        k = 2 if with_level else 1
        finetuned_ref = ref[:, k] if ref.shape[1] > k else None
        self.calibrator = finetuned_calibrator(
            base, oof, train_samples, ref[:, :k], finetuned_ref, finetuned_weight
        )
        return self

    def predict(self, samples: Sequence[SampleFields]) -> list[float]:
        """Predicted mean ratings in [1, 5], one per sample (labels never read)."""
        samples = list(samples)
        if not samples:
            return []
        preds = self.calibrator.apply(self.components(samples))
        return [float(np.clip(p, 1.0, 5.0)) for p in preds]

    def save(self, directory: str | Path) -> Path:
        """Write ``quality_predictor.json`` (small) into ``directory``."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        state = {
            "rank": self.rank.to_dict(),
            "level": self.level.to_dict() if self.level is not None else None,
            "context": self.context.coef_ if self.context is not None else None,
            "calibrator": self.calibrator.to_dict(),
            "finetuned_dir": self.finetuned_dir,  # the first, for readers of older files
            "finetuned_dirs": self.finetuned_dirs,
            "reference": self.reference,
        }
        path = directory / "quality_predictor.json"
        path.write_text(json.dumps(state))
        return path

    @classmethod
    def load(cls, directory: str | Path, cache_dir: str | Path | None = None) -> QualityPredictor:
        """Load what :meth:`save` wrote; a relative ``finetuned_dir`` is resolved against
        ``directory``."""
        directory = Path(directory)
        state = json.loads((directory / "quality_predictor.json").read_text())
        obj = cls(cache_dir)
        obj.rank = cls.rank_class.from_dict(state["rank"])
        obj.level = LevelModel.from_dict(state["level"]) if state.get("level") else None
        context = state.get("context")  # absent from files written before stage two
        obj.context = cls.context_class(coef_=list(context)) if context else None
        obj.calibrator = Calibrator(**state["calibrator"])
        # "ce_dir": the key of files written before the rename
        tuned_dirs = state.get("finetuned_dirs")
        if tuned_dirs is None:
            tuned_dir = state.get("finetuned_dir", state.get("ce_dir"))
            tuned_dirs = [tuned_dir] if tuned_dir else []
        obj.finetuned_dirs = [
            d if Path(d).is_absolute() else str(directory / d) for d in tuned_dirs
        ]
        obj.reference = state.get("reference")
        return obj


def finetuned_components(
    ratings: np.ndarray, samples: Sequence[SampleFields], center: float = 3.14
) -> np.ndarray:
    """Fine-tuned model ratings -> (antisymmetric pair difference, centred pair mean), (n, 2)."""
    z = antisymmetrise(ratings, samples, center=center)
    return np.stack([z, ratings - z - center], 1)


def train_oof_components(
    samples: Sequence[SampleFields],
    raw: np.ndarray,
    *,
    alpha: float = 1.0,
    with_level: bool = False,
    n_splits: int = 5,
    rank_class: type[RankModel] = RankModel,
) -> np.ndarray:
    """Out-of-fold ranker [and level] scores on a labelled split, shape (n, 1 or 2).

    GroupKFold by homonym keeps both senses of a story (and every story of a homonym) in
    one fold, so every score comes from models that never saw that homonym."""
    from sklearn.model_selection import GroupKFold

    samples = list(samples)
    groups = [s["homonym"] for s in samples]
    out = np.zeros((len(samples), 2 if with_level else 1))
    for fit_idx, test_idx in GroupKFold(n_splits=n_splits).split(raw, groups=groups):
        fit_s, test_s = [samples[i] for i in fit_idx], [samples[i] for i in test_idx]
        out[test_idx, 0] = (
            rank_class(alpha=alpha).fit(fit_s, raw[fit_idx]).score(test_s, raw[test_idx])
        )
        if with_level:
            out[test_idx, 1] = LevelModel().fit(fit_s, raw[fit_idx]).score(test_s, raw[test_idx])
    return out


def finetuned_calibrator(
    base: Calibrator,
    oof: np.ndarray,
    samples: Sequence[SampleFields],
    ref_base: np.ndarray,
    ref_finetuned: np.ndarray | None,
    finetuned_weight: float,
) -> Calibrator:
    """The final calibrator over [base components..., fine-tuned diff, fine-tuned level].

    ``base``: weights fitted on the out-of-fold base components ``oof`` of labelled
    ``samples``; the rating map is fitted there on the standardised base score. ``ref_base``
    / ``ref_finetuned`` (unlabelled reference scores, e.g. dev) fix the standard deviations:
    score = (base/sd_base + finetuned_weight * ce/sd_ce) / sd_total, then the map.
    """
    b_tr = base.combine(oof)
    unit = Calibrator(weights=[1.0], stds=[1.0])
    unit.fit_map(b_tr / (b_tr.std() + 1e-9), samples)
    b = base.combine(ref_base)
    sd_b = float(b.std()) + 1e-9
    weights = [w / sd_b for w in base.weights]
    stds = list(base.stds)
    if ref_finetuned is not None:
        sd_c = float(np.std(ref_finetuned)) + 1e-9
        total = float(np.std(b / sd_b + finetuned_weight * ref_finetuned / sd_c)) + 1e-9
        weights = [w / total for w in weights] + [finetuned_weight / total, 0.0]
        stds += [sd_c, 1.0]
    return Calibrator(
        weights=weights, stds=stds, mid=unit.mid, amp=unit.amp, scale=unit.scale, slope=unit.slope
    )
