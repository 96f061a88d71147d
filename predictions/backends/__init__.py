"""Backend registry: names mapped to dotted paths, resolved at call time.

Add a backend by writing a :class:`~predictions.backends.base.PredictorBackend` subclass and
listing it here or in the ``AMBISITE_BACKENDS`` setting (``{"name": "dotted.Path"}``).
"""

from __future__ import annotations

from django.conf import settings
from django.utils.module_loading import import_string

from .base import ParamError, PredictionOutput, PredictorBackend

BUILTIN: dict[str, str] = {
    "random": "predictions.backends.baselines.RandomBackend",
    "constant": "predictions.backends.baselines.ConstantBackend",
    "embedding": "predictions.backends.embedding.EmbeddingBackend",
    "crossencoder": "predictions.backends.crossencoder.CrossEncoderBackend",
    "biencoder": "predictions.backends.crossencoder.BiEncoderBackend",
    "quality": "predictions.backends.quality.QualityBackend",
    "openai_chat": "predictions.backends.openai_chat.OpenAIChatBackend",
    "hf_causal": "predictions.backends.hf_causal.HFCausalBackend",
    "minilm_relatedness": "predictions.backends.kinds.ContextualDistanceBackend",
    "knn_probe": "predictions.backends.kinds.KnnProbeBackend",
    "sense_choice_chat": "predictions.backends.sense_choice_chat.SenseChoiceChatBackend",
}


# Where a model server is and how to authenticate is the operator's choice (settings
# LLM_ENDPOINTS), never a run's: a URL or an environment variable's name in a run's params
# would let a staff account send the server's secrets anywhere.
CONNECTION_PARAMS = ("base_url", "api_key", "api_key_env")


class UnknownBackend(LookupError):
    pass


def refuse_connection_params(params: dict) -> None:
    """ParamError for the first of :data:`CONNECTION_PARAMS` in ``params``, for any backend."""
    for field in CONNECTION_PARAMS:
        if field in params:
            raise ParamError(
                field,
                "not allowed: LLM servers and their keys are set by the operator "
                '(LLM_ENDPOINTS); name one with "endpoint" (docs/llm-backends.md)',
            )


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
    """The backend ``name`` built with ``params``: every run, command and check builds its
    backend here, so the parameter rules hold everywhere."""
    cls = backend_class(name)
    refuse_connection_params(params)
    return cls(**params)


__all__ = [
    "CONNECTION_PARAMS",
    "ParamError",
    "PredictionOutput",
    "PredictorBackend",
    "UnknownBackend",
    "backend_class",
    "get_backend",
    "refuse_connection_params",
    "registry",
]
