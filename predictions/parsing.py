"""Pure parsing of model answers into scores on the 1-5 scale (no Django, no network).

* :func:`parse_score` reads a free-text answer ("4", "Score: 4", "**4**", "I'd say 3.",
  ``{"score": 4}``) and raises :class:`ParseError` when it finds no score or several.
* :func:`expected_from_top_logprobs` / :func:`expected_from_logprobs` turn token
  log-probabilities (the OpenAI ``logprobs.content[i].top_logprobs`` shape) into the expected
  value over 1-5, which keeps the model's uncertainty instead of the argmax.
* :func:`parse_comparative` reads ``{"A": 4, "B": 2}`` answers of the comparative prompt.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence

SCORES = (1, 2, 3, 4, 5)
DIGITS = {str(s): s for s in SCORES}
SCORE_KEYS = ("score", "rating", "answer", "plausibility")

# Mentions of the scale itself ("out of 5", "(1, 2, 3, 4 or 5)", "1-5") are not answers.
SCALE = re.compile(
    r"(?:out\s+of\s+5|/\s*5\b|\b1\s*(?:-|–|to)\s*5\b|\(?1,\s*2,\s*3,\s*4,?\s*(?:or|and)\s*5\)?)",
    re.I,
)
# A keyed digit counts only as a whole score: not the first digit of "3.5", "3-4" or "3 or 4".
NOT_WHOLE = r"(?!\w|\.\d|\s*(?:-|–|\bto\b|\bor\b|\band\b)\s*\d)"
KEYED = re.compile(
    r"\b(?:score|rating|answer|plausibility)\b\s*(?:is|of|:|=)?\s*([1-5])(?:\.0+)?" + NOT_WHOLE,
    re.I,
)
STANDALONE = re.compile(r"(?<![\w.])([1-5])(?:\.0+)?(?![\w]|\.\d)")
JSON_OBJECT = re.compile(r"\{[^{}]*\}", re.S)


class ParseError(ValueError):
    """An answer that holds no single score; ``text`` is the raw answer, kept for the record."""

    def __init__(self, message: str, text: str = ""):
        super().__init__(message)
        self.text = text


def _in_range(value) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip() in DIGITS:
        return float(DIGITS[value.strip()])
    if isinstance(value, int | float) and 1 <= value <= 5 and math.isfinite(value):
        return float(value)
    return None


def _json_objects(text: str) -> Iterable[dict]:
    for match in JSON_OBJECT.finditer(text):
        try:
            data = json.loads(match.group(0))
        except ValueError:
            continue
        if isinstance(data, dict):
            yield data


def _json_score(text: str) -> float | None:
    for data in _json_objects(text):
        lowered = {str(k).lower(): v for k, v in data.items()}
        for key in SCORE_KEYS:
            if key in lowered:
                value = _in_range(lowered[key])
                if value is None:
                    raise ParseError(f"{key} {lowered[key]!r} is not a score 1-5", text)
                return value
    return None


def parse_score(text: str) -> float:
    """The one score in a free-text answer, or :class:`ParseError`."""
    if not isinstance(text, str) or not text.strip():
        raise ParseError("empty answer", text or "")
    from_json = _json_score(text)
    if from_json is not None:
        return from_json
    plain = SCALE.sub(" ", re.sub(r"[*_`#]", "", text))
    keyed = KEYED.findall(plain)
    if keyed:
        return float(keyed[-1])
    found = {int(d) for d in STANDALONE.findall(plain)}
    if len(found) == 1:
        return float(found.pop())
    if found:
        raise ParseError(f"several scores in the answer: {sorted(found)}", text)
    raise ParseError("no score 1-5 in the answer", text)


def digit_of(token: str) -> int | None:
    """The score a token stands for ("4", " 4", "**4"), or None."""
    stripped = token.strip().strip("*_`\"'")
    return DIGITS.get(stripped)


def expected_from_probs(probs: Sequence[float]) -> tuple[float, tuple[float, ...]]:
    """Normalise five non-negative weights for 1..5; return (expected value, distribution)."""
    total = sum(probs)
    if len(probs) != 5 or not total > 0 or not math.isfinite(total):
        raise ParseError(f"no probability mass on the scores 1-5: {list(probs)}")
    dist = tuple(p / total for p in probs)
    return sum(s * p for s, p in zip(SCORES, dist)), dist


def softmax_expected(logits: Sequence[float]) -> tuple[float, tuple[float, ...]]:
    """Expected score from five log-probabilities or logits for "1".."5"."""
    top = max(logits)
    return expected_from_probs([math.exp(x - top) for x in logits])


def expected_from_top_logprobs(top_logprobs: Sequence[Mapping]) -> tuple[float, tuple[float, ...]]:
    """Expected value from one position's ``[{"token": "4", "logprob": -0.1}, ...]``.

    Tokens that spell the same digit (" 4", "4") are added up; the mass is renormalised over
    the digits present, so a missing digit counts as probability 0.
    """
    probs = [0.0] * 5
    for entry in top_logprobs:
        digit = digit_of(str(entry.get("token", "")))
        logprob = entry.get("logprob")
        if digit is not None and isinstance(logprob, int | float) and math.isfinite(logprob):
            probs[digit - 1] += math.exp(logprob)
    return expected_from_probs(probs)


def expected_from_logprobs(
    logprobs: Mapping | None, score: float | None = None
) -> tuple[float, tuple[float, ...]] | None:
    """Expected value at the first answer token that is a digit 1-5 (with ``score``, the
    answer's parsed score: the first token that spells it), or None if there is none.

    ``logprobs`` is a chat completion choice's ``logprobs`` object; the score token need not be
    the first ("**4**" starts with "**").
    """
    content = (logprobs or {}).get("content") or []
    for position in content:
        digit = digit_of(str(position.get("token", "")))
        if digit is None or (score is not None and digit != score):
            continue
        if position.get("top_logprobs"):
            return expected_from_top_logprobs(position["top_logprobs"])
    return None


def parse_comparative(text: str, labels: Sequence[str] = ("A", "B")) -> dict[str, float]:
    """Scores per label from ``{"A": 4, "B": 2}`` (JSON first, then "A: 4, B: 2" text)."""
    if not isinstance(text, str) or not text.strip():
        raise ParseError("empty answer", text or "")
    for data in _json_objects(text):
        upper = {str(k).strip().upper(): v for k, v in data.items()}
        if all(label.upper() in upper for label in labels):
            checked = {label: _in_range(upper[label.upper()]) for label in labels}
            in_range = {label: v for label, v in checked.items() if v is not None}
            if len(in_range) != len(checked):
                raise ParseError(f"scores out of range: {data}", text)
            return in_range
    plain = re.sub(r"[*_`#]", "", text)
    scores: dict[str, float] = {}
    for label in labels:
        found = re.findall(rf"\b{re.escape(label)}\b\W{{0,3}}\s*([1-5])(?:\.0+)?{NOT_WHOLE}", plain)
        if len(set(found)) != 1:
            raise ParseError(f"no single score for {label}", text)
        scores[label] = float(found[0])
    return scores
