"""How the dashboards print a figure: rounded, or "—" when it is undefined, never "nan"."""

from __future__ import annotations

import math
from numbers import Real

from django import template
from django.template.defaultfilters import floatformat

register = template.Library()


def undefined(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


@register.filter
def fig(value, digits: int = 3) -> str:
    """``value`` to ``digits`` places; "—" for None and NaN (an undefined figure)."""
    if undefined(value):
        return "—"
    if not isinstance(value, Real):
        return str(value)
    return floatformat(value, digits)
