"""The one rule for an undefined figure: None, NaN, +inf or -inf (a pure module, no Django).

JSON has no NaN and no infinity: Python's ``json.dumps`` writes ``NaN`` and ``Infinity``,
which a browser's ``JSON.parse`` refuses, so a JSON endpoint sends every undefined figure as
null (:func:`json_safe`), and a page prints it as a dash (``dashboards`` ``fig`` filter).
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

__all__ = ["json_safe", "undefined"]


def undefined(value: object) -> bool:
    """Whether ``value`` is no figure: None, or a non-finite real (NaN, +inf, -inf; numpy's
    floats included). Whole numbers and booleans are always finite."""
    if value is None:
        return True
    if isinstance(value, Real) and not isinstance(value, Integral):
        return not math.isfinite(value)
    return False


def json_safe(value: Any) -> Any:
    """``value`` with every undefined figure, at any depth of dicts, lists and tuples, as
    None (a tuple becomes a list, as JSON has it); everything else as it is."""
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return None if undefined(value) else value
