"""One chat completion through the operator's named endpoints (``LLM_ENDPOINTS``), with the
OpenAI-compatible backend's client (retries, no redirects, masked keys)."""

from __future__ import annotations

from predictions.backends.base import ParamError
from predictions.backends.openai_chat import LLMRequestError, OpenAIChatBackend

MAX_TOKENS = 400


class LLMError(Exception):
    """The endpoint could not be used or did not answer."""


def _backend(endpoint: str, model: str) -> OpenAIChatBackend:
    try:
        return OpenAIChatBackend(
            endpoint=endpoint, model=model, max_tokens=MAX_TOKENS, max_retries=2, timeout=60.0
        )
    except ParamError as exc:
        raise LLMError(str(exc)) from None


def check_endpoint(endpoint: str, model: str) -> None:
    """``LLMError`` naming the problem unless the operator allows ``model`` on ``endpoint``."""
    _backend(endpoint, model)


def complete(endpoint: str, model: str, prompt: str) -> tuple[str, str]:
    """The answer to ``prompt`` sent as one user message (as the paper sent its prompts),
    and the model name the server reports."""
    backend = _backend(endpoint, model)
    try:
        text = backend.complete([{"role": "user", "content": prompt}])
    except LLMRequestError as exc:
        raise LLMError(str(exc)) from None
    return text, backend.served_model or model
