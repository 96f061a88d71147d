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

import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from predictions import parsing
from predictions.llm_client import ChatClient, LLMRequestError, Retries, parse_retry_after
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

UNPARSED = "[unparsed] "
# Re-exported: callers and tests name them from here too.
__all__ = [
    "LLMRequestError",
    "OpenAIChatBackend",
    "PredictionFailed",
    "UNPARSED",
    "parse_retry_after",
]


class PredictionFailed(RuntimeError):
    """An answer that could not be parsed even after one re-ask (``on_failure="raise"``)."""

    def __init__(self, sample_id: str, raw_output: str):
        super().__init__(f"sample {sample_id}: no score in answer {raw_output[:200]!r}")
        self.raw_output = raw_output


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


def _retries(params: dict) -> Retries:
    return Retries(
        max_retries=int(_bounded("max_retries", params["max_retries"], 0, 20)),
        backoff_base=_bounded("backoff_base", params["backoff_base"], 0, 600),
        backoff_max=_bounded("backoff_max", params["backoff_max"], 0, 3600),
        retry_after_max=_bounded("retry_after_max", params["retry_after_max"], 0, 3600),
    )


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
        params = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        super().__init__(**params)
        self.endpoint, self.model = str(endpoint or ""), str(model or "")
        self.client = ChatClient(self.endpoint, self.model)  # endpoint and model first
        self._set_prompt(prompt, fallback_prompt)
        self._set_concurrency(max_concurrency, batch_size)
        self.client.retries = _retries(params)
        self.client.timeout = _bounded("timeout", timeout, 0.1, 600)
        self._set_request(logprobs, top_logprobs, max_tokens, temperature, extra_body)
        self._set_failure(on_failure, fallback_score)

    def _set_prompt(self, prompt: str, fallback_prompt: str) -> None:
        self.prompt = _prompt("prompt", prompt)
        self.fallback_prompt = _prompt("fallback_prompt", fallback_prompt).id
        self.prompt_version = self.prompt.id
        self.needs_whole_stories = self.prompt.is_comparative

    def _set_concurrency(self, max_concurrency: int, batch_size: int | None) -> None:
        self.max_concurrency = int(_bounded("max_concurrency", max_concurrency, 1, 64))
        # A batch is one thread pool's worth of work, so it must outnumber the workers.
        default_batch = max(16, 4 * self.max_concurrency)
        self.batch_size = int(_bounded("batch_size", batch_size or default_batch, 1, 10_000))

    def _set_request(
        self,
        logprobs: bool,
        top_logprobs: int,
        max_tokens: int | None | str,
        temperature: float | None,
        extra_body: dict | None,
    ) -> None:
        """What each request asks for besides the messages (after :meth:`_set_prompt`)."""
        self.logprobs = bool(logprobs)
        self.top_logprobs = int(_bounded("top_logprobs", top_logprobs, 0, 20))
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

    def _set_failure(self, on_failure: str, fallback_score: float) -> None:
        if on_failure not in ("fallback", "raise"):
            raise ParamError("on_failure", 'on_failure is "fallback" or "raise"')
        self.on_failure = on_failure
        self.fallback_score = _bounded("fallback_score", fallback_score, 1, 5)
        self.failures = 0
        self._lock = threading.Lock()

    @property
    def served_model(self) -> str:
        """The model name the server reports ("" until it answered)."""
        return self.client.served_model

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
        """The answer's score (ParseError when its text holds no single score: a refusal or a
        range is re-asked even where a digit token has log-probabilities); with ``logprobs``,
        the expected value at the token of that score."""
        parsed = parsing.parse_score(answer)
        expected = parsing.expected_from_logprobs(logprobs, parsed) if self.logprobs else None
        if expected is not None:
            score, dist = expected
            return PredictionOutput(score=score, raw_output=raw or answer, distribution=dist)
        return PredictionOutput(score=parsed, raw_output=raw or answer)

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
        """The answer text to ``messages`` (retries as for scoring)."""
        return self._complete(messages)[0]

    def _complete(self, messages: list[dict]) -> tuple[str, dict | None]:
        """The answer text and its logprobs object (the client retries)."""
        return self.client.complete(self.request_body(messages))
