"""Backend registry: names mapped to dotted paths, resolved at call time.

Add a backend by writing a :class:`~predictions.backends.base.PredictorBackend` subclass and
listing it here or in the ``AMBISITE_BACKENDS`` setting (``{"name": "dotted.Path"}``).
"""

from __future__ import annotations

import inspect

from django.conf import settings
from django.utils.module_loading import import_string

from ..errors import PredictionsError
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
    "minilm_use_pairs": "predictions.backends.usage.UsePairSimilarityBackend",
}


# Where a model server is and how to authenticate is the operator's choice (settings
# LLM_ENDPOINTS), never a run's: a URL or an environment variable's name in a run's params
# would let a staff account send the server's secrets anywhere.
CONNECTION_PARAMS = ("base_url", "api_key", "api_key_env")


class UnknownBackend(PredictionsError, LookupError):
    """A backend name that is not in the registry."""


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
    refuse_unknown_params(name, cls, params)
    try:
        return cls(**params)
    except TypeError as exc:  # a value of the wrong type, e.g. int(None): the run's fault
        raise PredictionsError(f"{name}: a parameter has the wrong type ({exc})") from exc


def refuse_unknown_params(name: str, cls: type[PredictorBackend], params: dict) -> None:
    """ParamError for the first parameter the backend does not name: every backend takes
    explicit keyword parameters, so a misspelt one is refused when the run is created."""
    known = accepted_params(cls)
    if known is None:
        return  # a backend that takes anything checks its parameters itself
    for field in params:
        if field not in known:
            raise ParamError(
                field, f"{name} has no such parameter (known: {', '.join(known) or 'none'})"
            )


def accepted_params(cls: type[PredictorBackend]) -> list[str] | None:
    """The keyword parameters ``cls`` takes: its ``__init__``'s and, where that passes
    ``**params`` on to a parent backend's (``sense_choice_chat`` to ``openai_chat``'s), the
    parent's too; None for one whose ``**params`` reach :class:`PredictorBackend` (anything)."""
    known: list[str] = []
    for klass in cls.__mro__:
        if klass is PredictorBackend:
            return None
        if "__init__" not in vars(klass):
            continue
        parameters = inspect.signature(vars(klass)["__init__"]).parameters.values()
        named = [p.name for p in parameters if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
        known += [name for name in named if name != "self" and name not in known]
        if not any(p.kind is p.VAR_KEYWORD for p in parameters):
            return known
    return None


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
