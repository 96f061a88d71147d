"""The ML engineer's stacked quality predictor (:mod:`predictions.ml`) as a backend.

It loads a saved ``QualityPredictor`` (``QualityPredictor.load(dir)``) and predicts whole
stories at a time, since its features compare the senses of one story.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .base import PredictionOutput, PredictorBackend, SampleDict
from .crossencoder import artifact_dir


class QualityBackend(PredictorBackend):
    """Params: ``path`` (a saved QualityPredictor directory, absolute or under
    ``ARTIFACT_ROOT``) or ``model`` (a TrainedModel id); ``batch_size`` (96)."""

    name = "quality"
    version = "1"
    needs_whole_stories = True

    def __init__(self, *, path: str = "", model: int | None = None, batch_size: int = 96):
        super().__init__(path=path, model=model)
        if model is None and not path:
            raise ValueError("give the saved predictor as path=<directory> or model=<id>")
        self.path, self.model_id, self.batch_size = path, model, int(batch_size)
        self.directory: Path | None = None
        self.predictor = None

    def prepare(self, fit_samples: Sequence[SampleDict] | None = None) -> None:
        from ..ml.quality import QualityPredictor

        self.directory = artifact_dir(model=self.model_id, path=self.path)
        self.predictor = QualityPredictor.load(self.directory)

    def predict_batch(self, samples: Sequence[SampleDict]) -> list[PredictionOutput]:
        if self.predictor is None:
            self.prepare()
        return [PredictionOutput(score=float(v)) for v in self.predictor.predict(list(samples))]

    def model_version(self) -> str:
        return f"QualityPredictor at {self.directory or self.path}"
