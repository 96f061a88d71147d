"""Sense choice through the OpenAI-compatible chat backend: a versioned sensebench-style
prompt (default ``sense-choice-v1``), the answer ``{"sense_index": n}`` mapped back to the
candidate's index, which is the prediction's score; or FOOL's prompt (``fool-sense-label-v1``,
output ``sense_label``), whose answer is a sense's label. Endpoints, retries and concurrency are
:class:`~predictions.backends.openai_chat.OpenAIChatBackend`'s."""

from __future__ import annotations

from collections.abc import Callable

from predictions.prompts import reask_messages
from predictions.prompts.sense_choice import (
    OUTPUT,
    SenseIndexError,
    parse_sense_index,
    render_sense_choice,
)
from predictions.prompts.sense_label import OUTPUT as LABEL_OUTPUT
from predictions.prompts.sense_label import labels_of, parse_sense_label, render_sense_label

from .base import ParamError, PredictionOutput, SampleDict
from .openai_chat import UNPARSED, OpenAIChatBackend, PredictionFailed

DEFAULT_SENSE_PROMPT = "sense-choice-v1"


class SenseChoiceChatBackend(OpenAIChatBackend):
    name = "sense_choice_chat"
    version = "1"

    # openai_chat's parameters that a sense choice has no use for: its answer is parsed as a
    # candidate (no log-probabilities, no comparative prompt) and no choice scores -1.
    UNUSED = ("logprobs", "top_logprobs", "fallback_score", "fallback_prompt")

    def __init__(self, *, prompt: str = "", max_tokens: int | None | str = 32, **params):
        for field in self.UNUSED:
            if field in params:
                raise ParamError(field, f"{self.name} does not use it (its answer is a candidate)")
        super().__init__(prompt=prompt or DEFAULT_SENSE_PROMPT, max_tokens=max_tokens, **params)
        if self.prompt.output not in (OUTPUT, LABEL_OUTPUT):
            raise ParamError("prompt", f"prompt {self.prompt.id} is not a sense-choice prompt")
        self.needs_whole_stories = False

    def _predict_group(self, group: tuple[SampleDict, ...]) -> dict[str, PredictionOutput]:
        return {str(sample["id"]): self._predict_one(sample) for sample in group}

    def _render(self, sample: SampleDict) -> tuple[list[dict], Callable[[str], int]]:
        """The messages for ``sample`` and the parser of their answer (a candidate index)."""
        if self.prompt.output == LABEL_OUTPUT:
            messages, _ = render_sense_label(self.prompt, sample)
            labels = labels_of(sample)
            return messages, lambda answer: parse_sense_label(answer, labels)
        messages, order = render_sense_choice(self.prompt, sample)
        return messages, lambda answer: parse_sense_index(answer, order)

    def _predict_one(self, sample: SampleDict) -> PredictionOutput:
        messages, parse = self._render(sample)
        answer, _ = self._complete(messages)
        try:
            return PredictionOutput(score=float(parse(answer)), raw_output=answer)
        except SenseIndexError:
            retry, _ = self._complete(reask_messages(messages, answer, self.prompt))
            raw = f"{answer}\n---\n{retry}"
            try:
                return PredictionOutput(score=float(parse(retry)), raw_output=raw)
            except SenseIndexError:
                return self._no_choice(sample, raw)

    def _no_choice(self, sample: SampleDict, raw: str) -> PredictionOutput:
        """No usable answer: counted, then refused or scored -1 (never a candidate)."""
        with self._lock:
            self.failures += 1
        if self.on_failure == "raise":
            raise PredictionFailed(str(sample["id"]), raw)
        return PredictionOutput(score=-1.0, raw_output=UNPARSED + raw)
