"""How the dashboards print a figure: rounded, or "—" when it is undefined (None, NaN or an
infinity: ``ambisite.finite.undefined``), never "nan" or "inf"."""

from __future__ import annotations

from numbers import Real

from django import template
from django.template.defaultfilters import floatformat

from ambisite.finite import undefined

register = template.Library()


@register.filter
def fig(value, digits: int = 3) -> str:
    """``value`` to ``digits`` places; "—" for an undefined figure (None, NaN, infinity)."""
    if undefined(value):
        return "—"
    if not isinstance(value, Real):
        return str(value)
    return floatformat(value, digits)
