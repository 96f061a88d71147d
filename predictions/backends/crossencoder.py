"""A fine-tuned MiniLM as a backend: the cross-encoder of :mod:`predictions.ml.crossencoder`
or the bi-encoder of :mod:`predictions.ml.biencoder` (whichever the directory holds).

The model comes from a training job (param ``model``: its id, which the run loop turns into
``path``) or from a directory written by ``train`` (param ``path``, absolute or under
``ARTIFACT_ROOT``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .base import PredictionOutput, PredictorBackend, SampleDict


def artifact_dir(path: str) -> Path:
    """The directory of a trained model: ``path``, relative to ``settings.ARTIFACT_ROOT``
    unless absolute (a trained model's id is looked up by the run loop, not here)."""
    from django.conf import settings

    if not path:
        raise ValueError("give the trained model as model=<id> or path=<directory>")
    if path.isdigit():
        raise ValueError(
            f"{path} is a trained model's id: build the backend with "
            "predictions.runs.artifacts.backend_for, which looks it up"
        )
    candidate = Path(path)
    return candidate if candidate.is_absolute() else Path(settings.ARTIFACT_ROOT) / candidate


class CrossEncoderBackend(PredictorBackend):
    """Params: ``model`` (TrainedModel id) or ``path``; ``batch_size`` (32)."""

    name = "crossencoder"
    version = "1"
    artifact_params = {"model": "path"}

    def __init__(self, *, model: int | None = None, path: str = "", batch_size: int = 32):
        super().__init__(model=model, path=path)
        if model is None and not path:
            raise ValueError("give the trained model as model=<id> or path=<directory>")
        self.model_id, self.path, self.batch_size = model, path, int(batch_size)
        self.directory: Path | None = None
        self.loaded: Any = None  # the trained model, loaded by prepare()

    def prepare(self, fit_samples: Sequence[SampleDict] | None = None) -> None:
        from ..ml.biencoder import load_trained

        self.directory = artifact_dir(self.path or str(self.model_id))
        self.loaded = load_trained(self.directory)

    def predict_batch(self, samples: Sequence[SampleDict]) -> list[PredictionOutput]:
        if self.loaded is None:
            self.prepare()
        return [PredictionOutput(score=v) for v in self.loaded.predict(list(samples))]

    def model_version(self) -> str:
        kind = type(self.loaded).__name__ if self.loaded is not None else "MiniLM"
        return f"{kind} at {self.directory or self.path or self.model_id}"


class BiEncoderBackend(CrossEncoderBackend):
    """The fine-tuned bi-encoder alone: each sense's cosine minus the other sense's of the
    same story, ``3 + 10 * difference / 2`` clipped to 1-5 (uncalibrated; the ``quality``
    backend is where it is calibrated and combined). Params as ``crossencoder``."""

    name = "biencoder"
    needs_whole_stories = True

    def predict_batch(self, samples: Sequence[SampleDict]) -> list[PredictionOutput]:
        import numpy as np

        from ..ml.stacking import antisymmetrise

        if self.loaded is None:
            self.prepare()
        samples = list(samples)
        sims = self.loaded.similarities(samples)
        z = antisymmetrise(sims, samples, center=float(np.mean(sims)))
        return [PredictionOutput(score=float(np.clip(3.0 + 10.0 * v, 1.0, 5.0))) for v in z]
