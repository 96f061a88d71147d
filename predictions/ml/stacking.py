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
from pathlib import Path
from typing import Any

import numpy as np

from .calibrator import Calibrator, finetuned_calibrator, finetuned_components
from .features import (
    hub_features,
    raw_features,
    reference_means,
)
from .ranking import (
    LevelModel,
    RankModel,
    SetupContext,
    antisymmetrise,
    label_bounds,
    setup_context,
)
from .texts import SampleFields

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
