"""The ML engineer's stacked quality predictor (``predictions.ml.stacking``) as a backend.

It loads a saved ``QualityPredictor`` (``QualityPredictor.load(dir)``) or, with no saved
one, fits a fresh predictor on the run's fit split: the ridge ranker and story-level ridge
on frozen MiniLM features, plus (by default) a MiniLM bi-encoder fine-tuned on the same
split (``predictions.ml.biencoder``, about 2 x 100 s on two CPU cores), all calibrated on
grouped out-of-fold scores of that split. The fine-tuned bi-encoder is kept under
``ARTIFACT_ROOT/biencoder/fit-<hash of the fit samples and settings>`` and reused by the next
run fitted on the same samples. It predicts whole stories at a time, since its features
compare the two senses of one story.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .base import PredictionOutput, PredictorBackend, SampleDict
from .crossencoder import artifact_dir

log = logging.getLogger(__name__)
FINETUNE_WEIGHT = 0.5  # the fine-tuned model's weight, in standard deviations (fixed)
FINETUNE_SETTINGS = {"epochs": 2, "lr": 2e-5, "batch_size": 8, "seed": 13, "version": 1}
INPUT_FIELDS = ("homonym", "judged_meaning", "example_sentence", "precontext", "sentence")


def fit_fingerprint(samples: Sequence[SampleDict], settings: dict) -> str:
    """A short hash of the labelled samples (inputs and means) and the training settings."""
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode())
    for s in samples:
        row = [str(s.get(k) or "") for k in (*INPUT_FIELDS, "ending")] + [str(s.get("average"))]
        digest.update(json.dumps(row).encode())
    return digest.hexdigest()[:16]


def finetuned_encoder(samples: Sequence[SampleDict], root: Path, log=print) -> Path:
    """The bi-encoder fine-tuned on ``samples``: trained now, or reused from ``root``."""
    from ..ml.biencoder import train
    from ..ml.crossencoder import LOG_FILE

    directory = root / "biencoder" / f"fit-{fit_fingerprint(samples, FINETUNE_SETTINGS)}"
    if (directory / LOG_FILE).is_file():
        return directory
    partial = directory.with_name(directory.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    settings: dict[str, Any] = {k: v for k, v in FINETUNE_SETTINGS.items() if k != "version"}
    train(list(samples), partial, log=log, **settings)
    partial.rename(directory)  # only a finished model is ever found under the final name
    return directory


class QualityBackend(PredictorBackend):
    """Params: ``path`` (a saved QualityPredictor directory, absolute or under
    ``ARTIFACT_ROOT``) or ``model`` (a TrainedModel id), or neither with a ``fit_split``;
    ``encoder`` when fitting: ``"train"`` (default: fine-tune the bi-encoder on the fit
    split, or reuse the one already fine-tuned on it), ``"none"`` (frozen features only),
    a TrainedModel id or a model directory; ``cache`` (feature cache folder, optional);
    ``with_level`` (the story-level ridge; default on, measured better on dev);
    ``with_hub`` (the hubness-corrected similarities; default on); ``batch_size`` (96)."""

    name = "quality"
    version = "2"
    needs_whole_stories = True

    def __init__(
        self,
        *,
        path: str = "",
        model: int | None = None,
        cache: str = "",
        with_level: bool = True,
        with_hub: bool = True,
        encoder: str | int = "train",
        batch_size: int = 96,
    ):
        super().__init__(
            path=path,
            model=model,
            cache=cache,
            with_level=with_level,
            with_hub=with_hub,
            encoder=encoder,
        )
        if isinstance(encoder, str) and not encoder:
            raise ValueError('encoder: give "train", "none", a trained model id or a directory')
        self.with_level, self.with_hub = bool(with_level), bool(with_hub)
        self.path, self.model_id, self.cache = path, model, cache or None
        self.encoder = encoder
        self.batch_size = int(batch_size)
        self.directory: Path | None = None
        self.encoder_dir: Path | None = None
        self.predictor: Any = None  # a QualityPredictor, loaded or fitted by prepare()

    def _log(self, line: str) -> None:
        log.info("%s", line)
        self.heartbeat()

    def _encoder_dir(self, fit_samples: Sequence[SampleDict]) -> Path | None:
        from django.conf import settings

        if self.encoder == "none":
            return None
        if self.encoder == "train":
            return finetuned_encoder(fit_samples, Path(settings.ARTIFACT_ROOT), log=self._log)
        if isinstance(self.encoder, int) or str(self.encoder).isdigit():
            return artifact_dir(model=int(self.encoder))
        return artifact_dir(path=str(self.encoder))

    def prepare(self, fit_samples: Sequence[SampleDict] | None = None) -> None:
        from ..ml.stacking import QualityPredictor

        if self.path or self.model_id is not None:
            self.directory = artifact_dir(model=self.model_id, path=self.path)
            self.predictor = QualityPredictor.load(self.directory, cache_dir=self.cache)
        elif fit_samples:
            fit_samples = list(fit_samples)
            self.encoder_dir = self._encoder_dir(fit_samples)
            self.predictor = QualityPredictor(cache_dir=self.cache).fit(
                fit_samples,
                with_level=self.with_level,
                with_hub=self.with_hub,
                finetuned=self.encoder_dir,
                finetuned_weight=FINETUNE_WEIGHT,
            )
        else:
            raise ValueError("give a saved predictor (path=... or model=...) or a fit_split")

    def predict_batch(self, samples: Sequence[SampleDict]) -> list[PredictionOutput]:
        if self.predictor is None:
            self.prepare()
        return [PredictionOutput(score=float(v)) for v in self.predictor.predict(list(samples))]

    def model_version(self) -> str:
        if self.directory:
            return f"QualityPredictor ({self.directory})"
        encoder = f", bi-encoder {self.encoder_dir}" if self.encoder_dir else ", frozen features"
        return f"QualityPredictor (fitted on the run's fit split{encoder})"
