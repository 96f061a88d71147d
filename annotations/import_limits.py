"""What an imported value must fit before it is written: the model field's own length and a
finite number.

SQLite ignores a ``CharField``'s ``max_length`` and PostgreSQL refuses the whole write with a
``DataError``, so every importer checks each text against the field it goes into, naming the
field, while it parses (before anything is written). The limits are read from the models, so
a migration that changes a length changes the check with it.
"""

from __future__ import annotations

import math

from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db.models import Model


def max_length(model: type[Model], field: str) -> int | None:
    return model._meta.get_field(field).max_length  # type: ignore[union-attr]  # CharFields


def length_problem(value: str, model: type[Model], field: str) -> str | None:
    """Why ``value`` does not fit ``model.field`` (over its ``max_length``), or None."""
    limit = max_length(model, field)
    if limit is not None and len(value) > limit:
        return f"is {len(value)} characters long, over the limit of {limit}"
    return None


def finite_problem(value: float | None) -> str | None:
    """Why a number is not acceptable (infinite or NaN), or None; None passes."""
    if value is not None and not math.isfinite(value):
        return f"is {value}, not a finite number"
    return None


def slug_problem(value: str, model: type[Model], field: str = "name") -> str | None:
    """Why ``value`` cannot name a dataset or split (not a slug, or too long), or None."""
    try:
        validate_slug(value)
    except ValidationError:  # its message speaks of forms; ours names the value
        return f"{value[:40]!r} is not a slug (letters, digits, '-' and '_')"
    problem = length_problem(value, model, field)
    return f"{value[:40]!r} {problem}" if problem else None
