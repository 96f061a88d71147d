"""Backend registry: names mapped to dotted paths, resolved at call time.

Add a backend by writing a :class:`~predictions.backends.base.PredictorBackend` subclass and
listing it here or in the ``AMBISITE_BACKENDS`` setting (``{"name": "dotted.Path"}``).
"""

from __future__ import annotations

from django.conf import settings
from django.utils.module_loading import import_string

from .base import PredictionOutput, PredictorBackend

BUILTIN: dict[str, str] = {
    "random": "predictions.backends.baselines.RandomBackend",
    "constant": "predictions.backends.baselines.ConstantBackend",
    "embedding": "predictions.backends.embedding.EmbeddingBackend",
    "crossencoder": "predictions.backends.crossencoder.CrossEncoderBackend",
    "biencoder": "predictions.backends.crossencoder.BiEncoderBackend",
    "quality": "predictions.backends.quality.QualityBackend",
    "openai_chat": "predictions.backends.openai_chat.OpenAIChatBackend",
    "hf_causal": "predictions.backends.hf_causal.HFCausalBackend",
}


class UnknownBackend(LookupError):
    pass


def registry() -> dict[str, str]:
    return {**BUILTIN, **getattr(settings, "AMBISITE_BACKENDS", {})}


def backend_class(name: str) -> type[PredictorBackend]:
    try:
        path = registry()[name]
    except KeyError:
        known = ", ".join(sorted(registry())) or "none"
        raise UnknownBackend(f"unknown backend {name!r} (known: {known})") from None
    return import_string(path)


def get_backend(name: str, **params) -> PredictorBackend:
    return backend_class(name)(**params)


__all__ = [
    "PredictionOutput",
    "PredictorBackend",
    "UnknownBackend",
    "backend_class",
    "get_backend",
    "registry",
]
