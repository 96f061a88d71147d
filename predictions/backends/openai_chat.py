"""An OpenAI-compatible chat-completions backend (OpenAI, vLLM, Ollama, llama.cpp server).

The server is one of the operator's named endpoints (the ``LLM_ENDPOINTS`` setting, read when
the backend is built): a run names it and a model the endpoint allows, and can give neither a
URL nor a key nor the name of an environment variable. Run parameters:

``endpoint``        name of a configured endpoint (required)
``model``           model name as the server knows it (required; the endpoint's ``models``
                    list must allow it)
``prompt``          prompt id (default ``ambistory-b3-zeroshot-v1``); a comparative prompt
                    scores both senses of a story in one call
``logprobs``        ask for token log-probabilities and use the expected value over 1-5
``top_logprobs``    how many alternatives per token (default 5, OpenAI allows up to 20)
``max_concurrency`` requests in flight at once (default 4)
``max_retries``, ``backoff_base``, ``backoff_max``, ``retry_after_max``, ``timeout``,
``max_tokens``, ``temperature`` (default 0; ``null`` leaves it to the server), ``extra_body``
(a dict merged into each request, e.g. vLLM's ``chat_template_kwargs``; only the fields that
``extra_body.ALLOWED`` lists, never ``n``, ``model`` or ``messages``),
``on_failure``      ``"fallback"`` (default: score ``fallback_score``, raw text kept with an
                    ``[unparsed]`` mark) or ``"raise"``.

Errors name the endpoint and the HTTP status with the first line of the server's message,
never the URL's credentials or the key (which is masked if a server echoes it).
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from email.utils import parsedate_to_datetime
from typing import Any

from django.conf import settings

from ambisite.llm_endpoints import allows_model
from predictions import parsing
from predictions.prompts import (
    DEFAULT_PROMPT,
    Prompt,
    UnknownPrompt,
    comparative_order,
    get_prompt,
    reask_messages,
)
from predictions.prompts import render as render_prompt

from .base import ParamError, PredictionOutput, PredictorBackend, SampleDict
from .extra_body import ExtraBodyError, clean_extra_body

RETRY_STATUSES = frozenset({408, 409, 429}) | frozenset(range(500, 600))
UNPARSED = "[unparsed] "


class LLMRequestError(RuntimeError):
    """A request that failed for good (a 4xx, or retries used up)."""


class PredictionFailed(RuntimeError):
    """An answer that could not be parsed even after one re-ask (``on_failure="raise"``)."""

    def __init__(self, sample_id: str, raw_output: str):
        super().__init__(f"sample {sample_id}: no score in answer {raw_output[:200]!r}")
        self.raw_output = raw_output


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


def _bounded(field: str, value: object, low: float, high: float) -> float:
    """``value`` as a number from ``low`` to ``high``, else ParamError naming the field."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ParamError(field, f"{field} must be a number") from None
    if not low <= number <= high:  # NaN fails too
        raise ParamError(field, f"{field} must be from {low:g} to {high:g}")
    return number


def _prompt(field: str, prompt_id: object) -> Prompt:
    try:
        return get_prompt(str(prompt_id or DEFAULT_PROMPT))
    except UnknownPrompt as exc:
        raise ParamError(field, str(exc)) from None


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is answered as the error it is: following it would send the key (urllib
    keeps the Authorization header) to a server the operator did not name."""

    def redirect_request(self, *args, **kwargs):
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


class OpenAIChatBackend(PredictorBackend):
    name = "openai_chat"
    version = "1"
    batch_size = 16

    def __init__(
        self,
        *,
        endpoint: str = "",
        model: str = "",
        prompt: str = "",
        fallback_prompt: str = "",
        logprobs: bool = False,
        top_logprobs: int = 5,
        max_concurrency: int = 4,
        batch_size: int | None = None,
        max_retries: int = 5,
        backoff_base: float = 1.0,
        backoff_max: float = 60.0,
        retry_after_max: float = 300.0,
        timeout: float = 60.0,
        max_tokens: int | None | str = "auto",
        temperature: float | None = 0,
        extra_body: dict | None = None,
        on_failure: str = "fallback",
        fallback_score: float = 4.0,
    ):
        super().__init__(**{k: v for k, v in locals().items() if k not in ("self", "__class__")})
        self.endpoint = str(endpoint or "")
        config = configured_endpoint(self.endpoint)
        self.base_url = config["base_url"]
        self.api_key_env = config["api_key_env"]
        self.model = str(model or "")
        if not self.model:
            allowed = ", ".join(config["models"])
            raise ParamError(
                "model", f"openai_chat needs a model (endpoint {self.endpoint!r} allows: {allowed})"
            )
        if not allows_model(config, self.model):
            allowed = ", ".join(config["models"])
            raise ParamError(
                "model",
                f"endpoint {self.endpoint!r} does not allow model {self.model!r} "
                f"(allowed: {allowed})",
            )
        self.prompt = _prompt("prompt", prompt)
        self.fallback_prompt = _prompt("fallback_prompt", fallback_prompt).id
        self.prompt_version = self.prompt.id
        self.needs_whole_stories = self.prompt.is_comparative
        self.logprobs = bool(logprobs)
        self.top_logprobs = int(_bounded("top_logprobs", top_logprobs, 0, 20))
        self.max_concurrency = int(_bounded("max_concurrency", max_concurrency, 1, 64))
        # A batch is one thread pool's worth of work, so it must outnumber the workers.
        default_batch = max(16, 4 * self.max_concurrency)
        self.batch_size = int(_bounded("batch_size", batch_size or default_batch, 1, 10_000))
        self.max_retries = int(_bounded("max_retries", max_retries, 0, 20))
        self.backoff_base = _bounded("backoff_base", backoff_base, 0, 600)
        self.backoff_max = _bounded("backoff_max", backoff_max, 0, 3600)
        self.retry_after_max = _bounded("retry_after_max", retry_after_max, 0, 3600)
        self.timeout = _bounded("timeout", timeout, 0.1, 600)
        default_tokens = 64 if self.prompt.is_comparative else 16
        tokens = default_tokens if max_tokens == "auto" else max_tokens or 0
        self.max_tokens = int(_bounded("max_tokens", tokens, 0, 100_000))
        if temperature is not None:
            temperature = _bounded("temperature", temperature, 0, 2)
        self.temperature = temperature
        try:
            self.extra_body = clean_extra_body(extra_body)
        except ExtraBodyError as exc:
            raise ParamError("extra_body", str(exc)) from None
        if on_failure not in ("fallback", "raise"):
            raise ParamError("on_failure", 'on_failure is "fallback" or "raise"')
        self.on_failure = on_failure
        self.fallback_score = _bounded("fallback_score", fallback_score, 1, 5)
        self.failures = 0
        self._lock = threading.Lock()
        self.served_model = ""
        self.sleep: Callable[[float], None] = time.sleep

    # --- contract --------------------------------------------------------------------------
    def predict_batch(self, samples: Sequence[SampleDict]) -> list[PredictionOutput]:
        """Scores in the order of ``samples``; requests run ``max_concurrency`` at a time."""
        groups = self._groups(samples)
        with ThreadPoolExecutor(max_workers=self.max_concurrency) as pool:
            results = list(pool.map(self._predict_group, groups))
        by_id = {sid: out for result in results for sid, out in result.items()}
        return [by_id[str(sample["id"])] for sample in samples]

    def model_version(self) -> str:
        return f"{self.served_model or self.model} via {self.endpoint}"

    # --- grouping --------------------------------------------------------------------------
    def _groups(self, samples: Sequence[SampleDict]) -> list[tuple[SampleDict, ...]]:
        """One request per sample, or per story (both senses) for a comparative prompt."""
        if not self.prompt.is_comparative:
            return [(sample,) for sample in samples]
        stories: dict[tuple, list[SampleDict]] = {}
        for sample in samples:
            key = (sample.get("homonym"), sample.get("precontext"), sample.get("sentence"))
            stories.setdefault((*key, sample.get("ending") or ""), []).append(sample)
        groups: list[tuple[SampleDict, ...]] = []
        for members in stories.values():
            while len(members) >= 2:
                groups.append((members.pop(0), members.pop(0)))
            groups.extend((m,) for m in members)
        return groups

    def _predict_group(self, group: tuple[SampleDict, ...]) -> dict[str, PredictionOutput]:
        if len(group) == 2:
            return self._predict_pair(*group)
        return {str(group[0]["id"]): self._predict_one(group[0])}

    # --- one sample ------------------------------------------------------------------------
    def _predict_one(self, sample: SampleDict) -> PredictionOutput:
        prompt = self.prompt
        if prompt.is_comparative:  # a story whose other sense is not in the run
            prompt = get_prompt(self.fallback_prompt)
        messages = render_prompt(prompt, sample)
        answer, logprobs = self._complete(messages)
        try:
            return self._score_answer(answer, logprobs)
        except parsing.ParseError:
            retry, logprobs = self._complete(reask_messages(messages, answer, prompt))
            try:
                return self._score_answer(retry, logprobs, raw=f"{answer}\n---\n{retry}")
            except parsing.ParseError:
                return self._failure(sample, f"{answer}\n---\n{retry}")

    def _score_answer(self, answer: str, logprobs: dict | None, raw: str = "") -> PredictionOutput:
        expected = parsing.expected_from_logprobs(logprobs) if self.logprobs else None
        if expected is not None:
            score, dist = expected
            return PredictionOutput(score=score, raw_output=raw or answer, distribution=dist)
        return PredictionOutput(score=parsing.parse_score(answer), raw_output=raw or answer)

    def _failure(self, sample: Mapping, raw: str) -> PredictionOutput:
        with self._lock:
            self.failures += 1
        if self.on_failure == "raise":
            raise PredictionFailed(str(sample["id"]), raw)
        return PredictionOutput(score=self.fallback_score, raw_output=UNPARSED + raw)

    # --- both senses of a story ------------------------------------------------------------
    def _predict_pair(self, first: SampleDict, second: SampleDict) -> dict[str, PredictionOutput]:
        a, b = comparative_order(first, second)
        labels = tuple(self.prompt.parameters.get("labels", ("A", "B")))
        messages = render_prompt(self.prompt, a, b)
        answer, _ = self._complete(messages)
        raw = answer
        try:
            scores = parsing.parse_comparative(answer, labels)
        except parsing.ParseError:
            retry, _ = self._complete(reask_messages(messages, answer, self.prompt))
            raw = f"{answer}\n---\n{retry}"
            try:
                scores = parsing.parse_comparative(retry, labels)
            except parsing.ParseError:
                return {str(s["id"]): self._failure(s, raw) for s in (a, b)}
        return {
            str(sample["id"]): PredictionOutput(score=scores[label], raw_output=raw)
            for sample, label in zip((a, b), labels)
        }

    # --- HTTP ------------------------------------------------------------------------------
    def request_body(self, messages: list[dict]) -> dict:
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.max_tokens:  # 0/null omits it, for APIs that want max_completion_tokens
            body["max_tokens"] = self.max_tokens
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.logprobs:
            body.update(logprobs=True, top_logprobs=self.top_logprobs)
        return {**body, **self.extra_body}

    def complete(self, messages: list[dict]) -> str:
        """The answer text to ``messages`` (retries as for scoring): for callers that want
        a text, not a score (e.g. the writing pipeline's precontexts)."""
        return self._complete(messages)[0]

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

    def _complete(self, messages: list[dict]) -> tuple[str, dict | None]:
        """The answer text and its logprobs object, retrying 429/5xx/timeouts with backoff."""
        body = json.dumps(self.request_body(messages)).encode("utf-8")
        for attempt in range(self.max_retries + 1):
            try:
                return self._post_once(body)
            except _Retry as why:
                if attempt == self.max_retries:
                    raise LLMRequestError(
                        f"endpoint {self.endpoint!r}: gave up after {attempt + 1} attempts ({why})"
                    ) from None
                self.sleep(self._delay(attempt, why.retry_after))
        raise AssertionError("unreachable")

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        """The server's Retry-After when it gives one, else exponential backoff with jitter."""
        if retry_after is not None:
            return min(retry_after, self.retry_after_max)
        ceiling = min(self.backoff_max, self.backoff_base * 2**attempt)
        return ceiling * (0.5 + random.random() / 2)

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
            if error.code in RETRY_STATUSES:
                wait = parse_retry_after(error.headers.get("Retry-After"))
                raise _Retry(f"HTTP {error.code}", wait) from None
            detail = first_line(error.read(64 * 1024).decode("utf-8", "replace"))
            if key:
                detail = detail.replace(key, "[key]")
            raise LLMRequestError(
                f"endpoint {self.endpoint!r}: HTTP {error.code}: {detail}".rstrip(": ")
            ) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
            raise _Retry(f"{type(error).__name__}: {error}") from None
        except ValueError:
            raise _Retry("response is not JSON") from None
        return self._answer(payload)

    def _answer(self, payload: dict) -> tuple[str, dict | None]:
        try:
            choice = payload["choices"][0]
            content = choice["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise _Retry(f"unexpected response shape: {str(payload)[:200]}") from None
        self.served_model = self.served_model or str(payload.get("model") or "")
        return content, choice.get("logprobs")
