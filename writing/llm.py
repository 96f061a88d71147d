"""One chat completion through the operator's named endpoints (``LLM_ENDPOINTS``), with the
predictions app's LLM client (retries, no redirects, masked keys)."""

from __future__ import annotations

from predictions.errors import ParamError
from predictions.llm_client import ChatClient, LLMRequestError, Retries

MAX_TOKENS = 400


class LLMError(Exception):
    """The endpoint could not be used or did not answer."""


def _client(endpoint: str, model: str) -> ChatClient:
    try:
        return ChatClient(endpoint, model, retries=Retries(max_retries=2), timeout=60.0)
    except ParamError as exc:
        raise LLMError(str(exc)) from None


def check_endpoint(endpoint: str, model: str) -> None:
    """``LLMError`` naming the problem unless the operator allows ``model`` on ``endpoint``."""
    _client(endpoint, model)


def complete(endpoint: str, model: str, prompt: str) -> tuple[str, str]:
    """The answer to ``prompt`` sent as one user message (as the paper sent its prompts) at
    temperature 0, and the model name the server reports."""
    client = _client(endpoint, model)
    try:
        text = client.text(
            [{"role": "user", "content": prompt}], max_tokens=MAX_TOKENS, temperature=0
        )
    except LLMRequestError as exc:
        raise LLMError(str(exc)) from None
    return text, client.served_model or model
