"""Which fields a run may add to each chat-completions request (``extra_body``). Pure.

The requests are paid with the operator's key, so a run may not multiply them (``n: 128``,
``best_of``, beam search), lengthen them past ``max_tokens``'s own bound, stream, call tools,
or swap the model or the messages. Only the sampling and formatting fields below pass, each
with a sane range; anything else is refused naming the key, before anything is stored or
sent.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable

MAX_TOKENS = 100_000  # the same bound as the ``max_tokens`` parameter
MAX_TEXT = 200
MAX_JSON_CHARS = 4000


class ExtraBodyError(ValueError):
    """A key or value ``extra_body`` may not hold; the message names the key."""


def _number(low: float, high: float, *, integer: bool = False) -> Callable[[object], str | None]:
    def check(value: object) -> str | None:
        is_number = isinstance(value, int | float) and not isinstance(value, bool)
        if not is_number or not math.isfinite(value):  # type: ignore[arg-type]
            return "must be a number"
        if integer and not isinstance(value, int):
            return "must be a whole number"
        if not low <= value <= high:  # type: ignore[operator]
            return f"must be between {low} and {high}"
        return None

    return check


def _text(value: object) -> str | None:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        return f"must be text of at most {MAX_TEXT} characters"
    return None


def _texts(most: int) -> Callable[[object], str | None]:
    def check(value: object) -> str | None:
        if isinstance(value, str):
            return _text(value)
        if not isinstance(value, list) or len(value) > most or any(map(_text, value)):
            return f"must be a text or a list of at most {most} texts"
        return None

    return check


def _one_of(*choices: str) -> Callable[[object], str | None]:
    def check(value: object) -> str | None:
        return None if value in choices else f"must be one of {', '.join(choices)}"

    return check


def _template_kwargs(value: object) -> str | None:
    """vLLM's ``chat_template_kwargs`` (``{"enable_thinking": false}``): a few flat values."""
    if not isinstance(value, dict) or len(value) > 10:
        return "must be an object of at most 10 fields"
    for key, item in value.items():
        if len(key) > 50 or not (isinstance(item, bool | int | float) or _text(item) is None):
            return f"field {key[:50]!r} must be a short flat value"
    return None


ALLOWED: dict[str, Callable[[object], str | None]] = {
    "max_completion_tokens": _number(0, MAX_TOKENS, integer=True),
    "seed": _number(0, 2**63 - 1, integer=True),
    "top_p": _number(0, 1),
    "top_k": _number(-1, 1000, integer=True),
    "min_p": _number(0, 1),
    "presence_penalty": _number(-2, 2),
    "frequency_penalty": _number(-2, 2),
    "repetition_penalty": _number(0, 2),
    "stop": _texts(4),
    "reasoning_effort": _one_of("none", "minimal", "low", "medium", "high"),
    "chat_template_kwargs": _template_kwargs,
    "guided_choice": _texts(20),
    "guided_regex": _text,
}


def clean_extra_body(value: object) -> dict:
    """``value`` as a dict of allowed fields, or :class:`ExtraBodyError` naming the key."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ExtraBodyError("extra_body must be a JSON object")
    for key, item in value.items():
        check = ALLOWED.get(key)
        if check is None:
            raise ExtraBodyError(
                f"extra_body may not set {str(key)[:50]!r} (allowed: {', '.join(ALLOWED)})"
            )
        problem = check(item)
        if problem:
            raise ExtraBodyError(f"extra_body {key!r} {problem}")
    if len(json.dumps(value)) > MAX_JSON_CHARS:
        raise ExtraBodyError(f"extra_body is longer than {MAX_JSON_CHARS} characters")
    return dict(value)
