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
FINETUNE_SEEDS = (13,)  # one bi-encoder per seed, their ratings averaged
INPUT_FIELDS = ("homonym", "judged_meaning", "example_sentence", "precontext", "sentence")


def fit_fingerprint(samples: Sequence[SampleDict], settings: dict) -> str:
    """A short hash of the labelled samples (inputs and means) and the training settings."""
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode())
    for s in samples:
        row = [str(s.get(k) or "") for k in (*INPUT_FIELDS, "ending")] + [str(s.get("average"))]
        digest.update(json.dumps(row).encode())
    return digest.hexdigest()[:16]


def finetuned_encoder(
    samples: Sequence[SampleDict], root: Path, log=print, seed: int | None = None
) -> Path:
    """The bi-encoder fine-tuned on ``samples`` (with ``seed``, default the settings' one):
    trained now, or reused from ``root``."""
    from ..ml.biencoder import train
    from ..ml.crossencoder import LOG_FILE

    full = dict(FINETUNE_SETTINGS) if seed is None else {**FINETUNE_SETTINGS, "seed": int(seed)}
    directory = root / "biencoder" / f"fit-{fit_fingerprint(samples, full)}"
    if (directory / LOG_FILE).is_file():
        return directory
    partial = directory.with_name(directory.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    settings: dict[str, Any] = {k: v for k, v in full.items() if k != "version"}
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
    ``with_hub`` (the hubness-corrected similarities; default on); ``with_context`` (the
    ranker's second stage, which reads a sense's scores on the setup's other stories; default
    on); ``finetune_weight`` (the
    fine-tuned bi-encoder's weight in standard deviations, default ``FINETUNE_WEIGHT``);
    ``finetune_seeds`` (with ``encoder="train"``: one bi-encoder fine-tuned per seed, their
    ratings averaged; default ``FINETUNE_SEEDS``); ``batch_size`` (96)."""

    name = "quality"
    version = "3"
    artifact_params = {"model": "path", "encoder": "encoder"}
    needs_whole_stories = True
    needs_whole_setups = True  # the ranker's setup context reads the setup's other stories

    def __init__(
        self,
        *,
        path: str = "",
        model: int | None = None,
        cache: str = "",
        with_level: bool = True,
        with_hub: bool = True,
        with_context: bool = True,
        encoder: str | int = "train",
        finetune_weight: float | None = None,
        finetune_seeds: Sequence[int] | None = None,
        batch_size: int = 96,
    ):
        weight = FINETUNE_WEIGHT if finetune_weight is None else float(finetune_weight)
        seeds = [int(v) for v in finetune_seeds] if finetune_seeds else list(FINETUNE_SEEDS)
        super().__init__(
            path=path,
            model=model,
            cache=cache,
            with_level=with_level,
            with_hub=with_hub,
            with_context=with_context,
            encoder=encoder,
            finetune_weight=weight,
            finetune_seeds=seeds,
        )
        if isinstance(encoder, str) and not encoder:
            raise ValueError('encoder: give "train", "none", a trained model id or a directory')
        if weight < 0 or len(set(seeds)) != len(seeds):
            raise ValueError("finetune_weight must be >= 0 and finetune_seeds distinct")
        self.finetune_weight, self.finetune_seeds = weight, seeds
        self.with_level, self.with_hub = bool(with_level), bool(with_hub)
        self.with_context = bool(with_context)
        self.path, self.model_id, self.cache = path, model, cache or None
        self.encoder = encoder
        self.batch_size = int(batch_size)
        self.directory: Path | None = None
        self.encoder_dirs: list[Path] = []
        self.predictor: Any = None  # a QualityPredictor, loaded or fitted by prepare()

    def _log(self, line: str) -> None:
        log.info("%s", line)
        self.heartbeat()

    @property
    def encoder_dir(self) -> Path | None:
        """The (first) fine-tuned bi-encoder in use, None with frozen features only."""
        return self.encoder_dirs[0] if self.encoder_dirs else None

    def _encoder_dirs(self, fit_samples: Sequence[SampleDict]) -> list[Path]:
        from django.conf import settings

        if self.encoder == "none":
            return []
        if self.encoder == "train":
            root = Path(settings.ARTIFACT_ROOT)
            return [
                finetuned_encoder(fit_samples, root, log=self._log, seed=seed)
                for seed in self.finetune_seeds
            ]
        return [artifact_dir(str(self.encoder))]

    def prepare(self, fit_samples: Sequence[SampleDict] | None = None) -> None:
        from ..ml.stacking import QualityPredictor

        if self.path or self.model_id is not None:
            self.directory = artifact_dir(self.path or str(self.model_id))
            self.predictor = QualityPredictor.load(self.directory, cache_dir=self.cache)
        elif fit_samples:
            fit_samples = list(fit_samples)
            self.encoder_dirs = self._encoder_dirs(fit_samples)
            self.predictor = QualityPredictor(cache_dir=self.cache).fit(
                fit_samples,
                with_level=self.with_level,
                with_hub=self.with_hub,
                with_context=self.with_context,
                finetuned=list(self.encoder_dirs) or None,
                finetuned_weight=self.finetune_weight,
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
        dirs = ", ".join(str(d) for d in self.encoder_dirs)
        encoder = f", bi-encoder {dirs}" if dirs else ", frozen features"
        return f"QualityPredictor (fitted on the run's fit split{encoder})"
