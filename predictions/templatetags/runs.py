"""Template filters of the run pages."""

from __future__ import annotations

import json

from django import template

register = template.Library()


@register.filter
def as_json(value) -> str:
    """JSON with sorted keys, as it can be pasted back into a run's parameters."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
