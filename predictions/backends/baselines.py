"""Baselines: a seeded random predictor and constants (majority 4, or tuned on a split).

Both are deterministic: the random score of a sample depends only on the seed and the
sample's id, so a resumed run predicts exactly what an uninterrupted one would.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from .base import PredictionOutput, PredictorBackend, SampleDict


class RandomBackend(PredictorBackend):
    """Uniform scores in [low, high], seeded per sample.

    Params: ``seed`` (0), ``low`` (1), ``high`` (5), ``integer`` (false: floats),
    ``batch_size`` (32) and ``sleep_per_batch`` (seconds; makes runs slow on purpose,
    for demonstrations and worker tests).
    """

    name = "random"
    version = "1"

    def __init__(
        self,
        *,
        seed: int = 0,
        low: float = 1.0,
        high: float = 5.0,
        integer: bool = False,
        batch_size: int = 32,
        sleep_per_batch: float = 0.0,
    ):
        super().__init__(seed=seed, low=low, high=high, integer=integer)
        if not low <= high:
            raise ValueError("low must not exceed high")
        self.seed, self.low, self.high, self.integer = int(seed), float(low), float(high), integer
        self.batch_size = int(batch_size)
        self.sleep_per_batch = float(sleep_per_batch)

    def score_for(self, sample_id: str) -> float:
        rng = random.Random(f"{self.seed}:{sample_id}")
        if self.integer:
            return float(rng.randint(int(self.low), int(self.high)))
        return round(rng.uniform(self.low, self.high), 4)

    def predict_batch(self, samples: Sequence[SampleDict]) -> list[PredictionOutput]:
        if self.sleep_per_batch:
            time.sleep(self.sleep_per_batch)
        return [PredictionOutput(score=self.score_for(str(s["id"]))) for s in samples]

    def model_version(self) -> str:
        return f"random(seed={self.seed}, {self.low}-{self.high})"


class ConstantBackend(PredictorBackend):
    """The same score for every sample.

    Params: ``value`` (4, the majority label) or ``tune: true`` to pick the constant with the
    best accuracy on the fit split's ratings (the run's ``fit_split``, e.g. ``"train"``).
    """

    name = "constant"
    version = "1"
    batch_size = 500

    def __init__(self, *, value: float = 4.0, tune: bool = False):
        super().__init__(value=value, tune=tune)
        self.value, self.tune = float(value), bool(tune)

    def prepare(self, fit_samples: Sequence[SampleDict] | None = None) -> None:
        if not self.tune:
            return
        if not fit_samples:
            raise ValueError("constant with tune=true needs a fit split (the run's fit_split)")
        from ..calibration import tune_constant

        self.value = tune_constant([s["choices"] for s in fit_samples])

    def predict_batch(self, samples: Sequence[SampleDict]) -> list[PredictionOutput]:
        return [PredictionOutput(score=self.value) for _ in samples]

    def model_version(self) -> str:
        return f"constant({self.value:g}{', tuned' if self.tune else ''})"
