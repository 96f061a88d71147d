"""The HTTP client of the operator's OpenAI-compatible chat endpoints (``LLM_ENDPOINTS``):
one endpoint and model per client, retries with backoff, no redirects, the key read at
request time and masked in errors. The ``openai_chat`` backend scores with it and the
writing pipeline asks it for texts.

Errors name the endpoint and the HTTP status with the first line of the server's message,
never the URL's credentials or the key (which is masked if a server echoes it).
"""

from __future__ import annotations

import json
import os
import random
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from http.client import HTTPException
from typing import Any

from django.conf import settings

from ambisite.llm_endpoints import allows_model

from .errors import ParamError

RETRY_STATUSES = frozenset({408, 409, 429}) | frozenset(range(500, 600))


class LLMRequestError(RuntimeError):
    """A request that failed for good (a 4xx, or retries used up)."""


class _Retry(Exception):
    def __init__(self, reason: str, retry_after: float | None = None):
        super().__init__(reason)
        self.retry_after = retry_after


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (seconds or an HTTP date), or None."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def configured_endpoint(name: str) -> dict:
    """The operator's endpoint called ``name`` (``settings.LLM_ENDPOINTS``), or ParamError."""
    endpoints = getattr(settings, "LLM_ENDPOINTS", {}) or {}
    known = ", ".join(sorted(endpoints)) or "none: the operator sets LLM_ENDPOINTS"
    if not name:
        raise ParamError("endpoint", f"openai_chat needs an endpoint name (configured: {known})")
    if name not in endpoints:
        raise ParamError("endpoint", f"no LLM endpoint {name!r} (configured: {known})")
    return endpoints[name]


def allowed_model(config: dict, endpoint: str, model: str) -> str:
    """``model`` if the endpoint allows it, else ParamError listing what it allows."""
    allowed = ", ".join(config["models"])
    if not model:
        raise ParamError(
            "model", f"openai_chat needs a model (endpoint {endpoint!r} allows: {allowed})"
        )
    if not allows_model(config, model):
        raise ParamError(
            "model",
            f"endpoint {endpoint!r} does not allow model {model!r} (allowed: {allowed})",
        )
    return model


def first_line(text: str, limit: int = 200) -> str:
    """The error message in a server's reply (``{"error": {"message": ...}}`` or the text),
    its first line only, at most ``limit`` characters."""
    message: object = text
    try:
        payload = json.loads(text)
        error = payload.get("error", payload) if isinstance(payload, dict) else payload
        message = error.get("message", error) if isinstance(error, dict) else error
    except ValueError:
        pass
    lines = str(message).strip().splitlines()
    return lines[0].strip()[:limit] if lines else ""


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is answered as the error it is: following it would send the key (urllib
    keeps the Authorization header) to a server the operator did not name."""

    def redirect_request(self, *args, **kwargs):
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


@dataclass(frozen=True)
class Retries:
    """How often and how long to retry 408/409/429/5xx, timeouts and garbled answers."""

    max_retries: int = 5
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    retry_after_max: float = 300.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """The server's Retry-After when it gives one, else exponential backoff with jitter."""
        if retry_after is not None:
            return min(retry_after, self.retry_after_max)
        ceiling = min(self.backoff_max, self.backoff_base * 2**attempt)
        return ceiling * (0.5 + random.random() / 2)


class ChatClient:
    """Chat completions of ``model`` on the operator's endpoint ``endpoint`` (ParamError
    naming the field when the endpoint is unknown or does not allow the model)."""

    def __init__(
        self, endpoint: str, model: str, *, retries: Retries = Retries(), timeout: float = 60.0
    ):
        self.endpoint = str(endpoint or "")
        config = configured_endpoint(self.endpoint)
        self.base_url: str = config["base_url"]
        self.api_key_env: str = config["api_key_env"]
        self.model = allowed_model(config, self.endpoint, str(model or ""))
        self.retries, self.timeout = retries, timeout
        self.served_model = ""  # the model name the server reports, once it answered
        self.sleep: Callable[[float], None] = time.sleep

    def text(self, messages: list[dict], **options: Any) -> str:
        """The answer text to ``messages``; ``options`` go into the request body."""
        return self.complete({"model": self.model, "messages": messages, **options})[0]

    def complete(self, body: dict) -> tuple[str, dict | None]:
        """The answer text and its logprobs object, retrying 429/5xx/timeouts with backoff."""
        data = json.dumps(body).encode("utf-8")
        for attempt in range(self.retries.max_retries + 1):
            try:
                return self._post_once(data)
            except _Retry as why:
                if attempt == self.retries.max_retries:
                    raise LLMRequestError(
                        f"endpoint {self.endpoint!r}: gave up after {attempt + 1} attempts ({why})"
                    ) from None
                self.sleep(self.retries.delay(attempt, why.retry_after))
        raise AssertionError("unreachable")

    def _api_key(self) -> str:
        """The endpoint's key, read from its variable at request time ("" for none)."""
        if not self.api_key_env:
            return ""
        key = os.environ.get(self.api_key_env, "")
        if not key:
            raise LLMRequestError(
                f"endpoint {self.endpoint!r}: its key variable {self.api_key_env} is not set"
            )
        return key

    def _post_once(self, body: bytes) -> tuple[str, dict | None]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = self._api_key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions", data=body, headers=headers, method="POST"
        )
        try:
            with _OPENER.open(request, timeout=self.timeout) as response:
                payload = json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            raise self._http_error(error, key) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError, HTTPException) as error:
            raise _Retry(f"{type(error).__name__}: {error}") from None
        except ValueError:
            raise _Retry("response is not JSON") from None
        return self._answer(payload)

    def _http_error(self, error: urllib.error.HTTPError, key: str) -> Exception:
        """A retry for a status worth retrying, else the error with the key masked."""
        if error.code in RETRY_STATUSES:
            return _Retry(f"HTTP {error.code}", parse_retry_after(error.headers.get("Retry-After")))
        detail = first_line(error.read(64 * 1024).decode("utf-8", "replace"))
        if key:
            detail = detail.replace(key, "[key]")
        return LLMRequestError(
            f"endpoint {self.endpoint!r}: HTTP {error.code}: {detail}".rstrip(": ")
        )

    def _answer(self, payload: dict) -> tuple[str, dict | None]:
        try:
            choice = payload["choices"][0]
            content = choice["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise _Retry(f"unexpected response shape: {str(payload)[:200]}") from None
        self.served_model = self.served_model or str(payload.get("model") or "")
        return content, choice.get("logprobs")
