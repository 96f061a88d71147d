"""A fine-tuned MiniLM cross-encoder (see :mod:`predictions.ml.crossencoder`) as a backend.

The model comes from a training job (``TrainedModel``, param ``model``: its id) or from a
directory written by ``train`` (param ``path``, absolute or under ``ARTIFACT_ROOT``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .base import PredictionOutput, PredictorBackend, SampleDict


def artifact_dir(*, model: int | None = None, path: str = "") -> Path:
    """The directory of a trained model: a TrainedModel id, or a path (relative to
    ``settings.ARTIFACT_ROOT`` unless absolute)."""
    from django.conf import settings

    if model is not None:
        from ..models import ModelRun, TrainedModel

        row = TrainedModel.objects.get(pk=int(model))
        if row.status != ModelRun.Status.SUCCEEDED:
            raise ValueError(f"trained model {row.pk} is {row.status}, not succeeded")
        return row.directory()
    if not path:
        raise ValueError("give the trained model as model=<id> or path=<directory>")
    candidate = Path(path)
    return candidate if candidate.is_absolute() else Path(settings.ARTIFACT_ROOT) / candidate


class CrossEncoderBackend(PredictorBackend):
    """Params: ``model`` (TrainedModel id) or ``path``; ``batch_size`` (32)."""

    name = "crossencoder"
    version = "1"

    def __init__(self, *, model: int | None = None, path: str = "", batch_size: int = 32):
        super().__init__(model=model, path=path)
        if model is None and not path:
            raise ValueError("give the trained model as model=<id> or path=<directory>")
        self.model_id, self.path, self.batch_size = model, path, int(batch_size)
        self.directory: Path | None = None
        self.loaded = None

    def prepare(self, fit_samples: Sequence[SampleDict] | None = None) -> None:
        from ..ml.crossencoder import CrossEncoderModel

        self.directory = artifact_dir(model=self.model_id, path=self.path)
        self.loaded = CrossEncoderModel.load(self.directory)

    def predict_batch(self, samples: Sequence[SampleDict]) -> list[PredictionOutput]:
        if self.loaded is None:
            self.prepare()
        return [PredictionOutput(score=v) for v in self.loaded.predict(list(samples))]

    def model_version(self) -> str:
        return f"MiniLM cross-encoder at {self.directory or self.path or self.model_id}"
