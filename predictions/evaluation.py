"""The official SemEval-2026 Task 5 metrics, as a pure module (no Django).

The official scorer (CodaBench, ``scoring.py`` of semeval26-05-scripts) reads a reference
jsonl (``{"id": "0", "label": [4, 5, 3, 1, 5]}``) and a prediction jsonl
(``{"id": "0", "prediction": 2.5}``) and reports

* ``spearman``: Spearman's rho between the predictions and the mean of each label list
  (``None`` where it is undefined, e.g. constant predictions), and
* ``accuracy``: the share of predictions "within standard deviation", where the SD is the
  *sample* SD (``statistics.stdev``) and the rule has strict inequalities:
  ``avg - sd < pred < avg + sd`` or else ``|avg - pred| < 1``.

That rule lives in :func:`annotations.official.is_within_sd` and nowhere else in the project;
it is re-exported here with the label mean and SD for the callers of this module.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from annotations.official import is_within_sd, label_mean, label_sd, spearman
from annotations.safe_input import InputError, TooLarge, iter_lines, loads_line

__all__ = [
    "ScoringError",
    "Score",
    "label_mean",
    "label_sd",
    "is_within_sd",
    "score",
    "score_lists",
    "parse_reference",
    "parse_predictions",
]


class ScoringError(ValueError):
    """A reference or prediction file that the official scorer would refuse."""


@dataclass(frozen=True)
class Score:
    accuracy: float
    correct: int
    total: int
    spearman: float | None

    def as_official(self) -> dict:
        """The scorer's ``scores.json`` content: ``{"accuracy": ..., "spearman": ...}``."""
        return {"accuracy": self.accuracy, "spearman": self.spearman}

    def as_dict(self) -> dict:
        return {
            "accuracy": self.accuracy,
            "correct": self.correct,
            "total": self.total,
            "spearman": self.spearman,
        }


def score_lists(labels: Sequence[Sequence[float]], predictions: Sequence[float]) -> Score:
    """Score aligned lists: ``labels[i]`` are the human ratings for ``predictions[i]``."""
    if len(labels) != len(predictions):
        raise ScoringError(f"{len(predictions)} predictions for {len(labels)} references")
    if not labels:
        raise ScoringError("nothing to score: the reference is empty")
    correct = sum(is_within_sd(p, lab) for p, lab in zip(predictions, labels))
    means = [label_mean(lab) for lab in labels]
    total = len(labels)
    return Score(
        accuracy=correct / total,
        correct=correct,
        total=total,
        spearman=spearman(list(predictions), means),
    )


def score(reference: Mapping[str, Sequence[float]], predictions: Mapping[str, float]) -> Score:
    """Score predictions by id against a reference ``{id: labels}``.

    Every reference id needs exactly one prediction and no prediction may name an unknown
    id, as in the official scorer.
    """
    for pid in predictions:
        if pid not in reference:
            raise ScoringError(f"id {pid} is not in the reference")
    for rid in reference:
        if rid not in predictions:
            raise ScoringError(f"id {rid} is missing")
    ids = list(reference)
    return score_lists([reference[i] for i in ids], [predictions[i] for i in ids])


def _json_lines(lines: Iterable[str | bytes]) -> Iterable[tuple[int, dict]]:
    """Each non-blank line's JSON object, read as a stream under the rules of
    :mod:`annotations.safe_input` (UTF-8, numbers that fit a double, bounded nesting, no
    duplicate keys); any problem is a :class:`ScoringError` naming the line."""
    try:
        for number, line in iter_lines(lines):
            if not line.strip():
                continue
            obj = loads_line(number, line)
            if not isinstance(obj, dict):
                raise ScoringError(f"line {number} is not a JSON object")
            yield number, obj
    except TooLarge:
        raise  # an upload over the cap: the caller answers 413
    except InputError as error:
        raise ScoringError(str(error)) from None


def _read_id(number: int, obj: dict) -> str:
    if "id" not in obj:
        raise ScoringError(f"line {number}: no id")
    raw = obj["id"]
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        raise ScoringError(f"line {number}: id must be a string")
    return str(raw)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def parse_reference(lines: Iterable[str | bytes]) -> dict[str, list[float]]:
    """Parse an official reference jsonl into ``{id: labels}``, in file order."""
    reference: dict[str, list[float]] = {}
    for number, obj in _json_lines(lines):
        rid = _read_id(number, obj)
        if rid in reference:
            raise ScoringError(f"line {number}: id {rid} appears twice")
        labels = obj.get("label")
        if not isinstance(labels, list) or not labels:
            raise ScoringError(f"line {number} (id {rid}): label must be a non-empty list")
        if not all(_is_number(v) for v in labels):
            raise ScoringError(f"line {number} (id {rid}): label holds a non-number")
        reference[rid] = labels
    return reference


def parse_predictions(
    lines: Iterable[str | bytes], reference_ids: Iterable[str] | None = None
) -> dict[str, float]:
    """Parse a prediction jsonl into ``{id: prediction}``.

    With ``reference_ids`` it also checks that the file covers exactly those ids. Errors name
    the line and the id where there is one (a missing id has no line; a line that is not JSON
    has no id), and contain the official scorer's wording.
    """
    known = None if reference_ids is None else set(reference_ids)
    predictions: dict[str, float] = {}
    for number, obj in _json_lines(lines):
        pid = _read_id(number, obj)
        if pid in predictions:
            raise ScoringError(f"line {number}: id {pid} appears twice")
        if known is not None and pid not in known:
            raise ScoringError(f"line {number}: id {pid} is not in the reference")
        if "prediction" not in obj:
            raise ScoringError(f"line {number}: prediction is missing (id {pid})")
        value = obj["prediction"]
        if not _is_number(value):
            raise ScoringError(f"line {number}: prediction is not a number (id {pid})")
        predictions[pid] = value
    if known is not None:
        order = reference_ids if isinstance(reference_ids, (list, tuple, dict)) else sorted(known)
        for rid in order:
            if rid not in predictions:
                raise ScoringError(f"id {rid} is missing")
    return predictions
