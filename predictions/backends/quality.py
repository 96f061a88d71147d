"""The ML engineer's stacked quality predictor (``predictions.ml.stacking``) as a backend.

It loads a saved ``QualityPredictor`` (``QualityPredictor.load(dir)``: ranker fitted on
train, calibrated on dev with folds grouped by homonym) or, with no saved one, fits a fresh
predictor on the run's fit split (ranker and calibration both on that split). It predicts
whole stories at a time, since its features compare the two senses of one story.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .base import PredictionOutput, PredictorBackend, SampleDict
from .crossencoder import artifact_dir


class QualityBackend(PredictorBackend):
    """Params: ``path`` (a saved QualityPredictor directory, absolute or under
    ``ARTIFACT_ROOT``) or ``model`` (a TrainedModel id), or neither with a ``fit_split``;
    ``cache`` (feature cache folder, optional); ``with_level`` (add the story-level ridge
    when fitting; default on, measured better on dev); ``batch_size`` (96)."""

    name = "quality"
    version = "1"
    needs_whole_stories = True

    def __init__(
        self,
        *,
        path: str = "",
        model: int | None = None,
        cache: str = "",
        with_level: bool = True,
        batch_size: int = 96,
    ):
        super().__init__(path=path, model=model, cache=cache, with_level=with_level)
        self.with_level = bool(with_level)
        self.path, self.model_id, self.cache = path, model, cache or None
        self.batch_size = int(batch_size)
        self.directory: Path | None = None
        self.predictor = None

    def prepare(self, fit_samples: Sequence[SampleDict] | None = None) -> None:
        from ..ml.stacking import QualityPredictor

        if self.path or self.model_id is not None:
            self.directory = artifact_dir(model=self.model_id, path=self.path)
            self.predictor = QualityPredictor.load(self.directory, cache_dir=self.cache)
        elif fit_samples:
            self.predictor = QualityPredictor(cache_dir=self.cache).fit(
                list(fit_samples), with_level=self.with_level
            )
        else:
            raise ValueError("give a saved predictor (path=... or model=...) or a fit_split")

    def predict_batch(self, samples: Sequence[SampleDict]) -> list[PredictionOutput]:
        if self.predictor is None:
            self.prepare()
        return [PredictionOutput(score=float(v)) for v in self.predictor.predict(list(samples))]

    def model_version(self) -> str:
        where = self.directory or "fitted on the run's fit split"
        return f"QualityPredictor ({where})"
