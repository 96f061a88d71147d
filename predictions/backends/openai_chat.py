"""An OpenAI-compatible chat-completions backend (OpenAI, vLLM, Ollama, llama.cpp server).

Run parameters (all optional except ``model``, which may also come from the environment):

``base_url``        server root ending in ``/v1`` (env ``AMBISITE_LLM_BASE_URL`` or
                    ``OPENAI_BASE_URL``; default ``https://api.openai.com/v1``)
``model``           model name (env ``AMBISITE_LLM_MODEL``)
``api_key``         key; better left out of the run's stored params and set in the environment
                    (``api_key_env`` names the variable; default ``AMBISITE_LLM_API_KEY`` then
                    ``OPENAI_API_KEY``). Local servers need none.
``prompt``          prompt id (default ``ambistory-b3-zeroshot-v1``); a comparative prompt
                    scores both senses of a story in one call
``logprobs``        ask for token log-probabilities and use the expected value over 1-5
``top_logprobs``    how many alternatives per token (default 5, OpenAI allows up to 20)
``max_concurrency`` requests in flight at once (default 4)
``max_retries``, ``backoff_base``, ``backoff_max``, ``retry_after_max``, ``timeout``,
``max_tokens``, ``temperature`` (default 0; ``null`` leaves it to the server), ``extra_body``
(a dict merged into each request, e.g. vLLM's ``chat_template_kwargs``),
``on_failure``      ``"fallback"`` (default: score ``fallback_score``, raw text kept with an
                    ``[unparsed]`` mark) or ``"raise"``.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from email.utils import parsedate_to_datetime

from predictions import parsing
from predictions.prompts import DEFAULT_PROMPT, comparative_order, get_prompt, reask_messages
from predictions.prompts import render as render_prompt

from .base import PredictionOutput, PredictorBackend, SampleDict

DEFAULT_BASE_URL = "https://api.openai.com/v1"
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


def _env_first(*names: str) -> str:
    return next((os.environ[n] for n in names if os.environ.get(n)), "")


class OpenAIChatBackend(PredictorBackend):
    name = "openai_chat"
    version = "1"
    batch_size = 16

    def __init__(self, **params):
        super().__init__(**params)
        self.prompt = get_prompt(params.get("prompt") or DEFAULT_PROMPT)
        self.prompt_version = self.prompt.id
        self.needs_whole_stories = self.prompt.is_comparative
        base_url = params.get("base_url") or _env_first("AMBISITE_LLM_BASE_URL", "OPENAI_BASE_URL")
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self.model = params.get("model") or _env_first("AMBISITE_LLM_MODEL")
        if not self.model:
            raise ValueError("openai_chat needs a model (param 'model' or AMBISITE_LLM_MODEL)")
        self.logprobs = bool(params.get("logprobs", False))
        self.top_logprobs = int(params.get("top_logprobs", 5))
        self.max_concurrency = max(1, int(params.get("max_concurrency", 4)))
        # A batch is one thread pool's worth of work, so it must outnumber the workers.
        self.batch_size = int(params.get("batch_size", max(16, 4 * self.max_concurrency)))
        self.max_retries = max(0, int(params.get("max_retries", 5)))
        self.backoff_base = float(params.get("backoff_base", 1.0))
        self.backoff_max = float(params.get("backoff_max", 60.0))
        self.retry_after_max = float(params.get("retry_after_max", 300.0))
        self.timeout = float(params.get("timeout", 60.0))
        default_tokens = 64 if self.prompt.is_comparative else 16
        self.max_tokens = int(params.get("max_tokens", default_tokens) or 0)
        self.temperature = params.get("temperature", 0)
        self.extra_body = dict(params.get("extra_body") or {})
        self.on_failure = params.get("on_failure", "fallback")
        self.fallback_score = float(params.get("fallback_score", 4.0))
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
        return f"{self.served_model or self.model} via {self.base_url}"

    # --- grouping --------------------------------------------------------------------------
    def _groups(self, samples: Sequence[SampleDict]) -> list[tuple[SampleDict, ...]]:
        """One request per sample, or per story (both senses) for a comparative prompt."""
        if not self.prompt.is_comparative:
            return [(sample,) for sample in samples]
        stories: dict[tuple, list[SampleDict]] = {}
        for sample in samples:
            key = (sample.get("homonym"), sample.get("precontext"), sample.get("sentence"))
            stories.setdefault((*key, sample.get("ending") or ""), []).append(sample)
        groups = []
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
            prompt = get_prompt(self.params.get("fallback_prompt") or DEFAULT_PROMPT)
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

    def _failure(self, sample: SampleDict, raw: str) -> PredictionOutput:
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
        body = {"model": self.model, "messages": messages}
        if self.max_tokens:  # 0/null omits it, for APIs that want max_completion_tokens
            body["max_tokens"] = self.max_tokens
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.logprobs:
            body.update(logprobs=True, top_logprobs=self.top_logprobs)
        return {**body, **self.extra_body}

    def _api_key(self) -> str:
        if self.params.get("api_key"):
            return str(self.params["api_key"])
        names = [self.params["api_key_env"]] if self.params.get("api_key_env") else []
        return _env_first(*names, "AMBISITE_LLM_API_KEY", "OPENAI_API_KEY")

    def _complete(self, messages: list[dict]) -> tuple[str, dict | None]:
        """The answer text and its logprobs object, retrying 429/5xx/timeouts with backoff."""
        body = json.dumps(self.request_body(messages)).encode("utf-8")
        for attempt in range(self.max_retries + 1):
            try:
                return self._post_once(body)
            except _Retry as why:
                if attempt == self.max_retries:
                    raise LLMRequestError(
                        f"{self.base_url}: gave up after {attempt + 1} attempts ({why})"
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
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload = json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            detail = error.read().decode("utf-8", "replace")[:500]
            if error.code in RETRY_STATUSES:
                wait = parse_retry_after(error.headers.get("Retry-After"))
                raise _Retry(f"HTTP {error.code}", wait) from None
            raise LLMRequestError(f"{self.base_url}: HTTP {error.code}: {detail}") from None
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
