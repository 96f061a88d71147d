"""Rows numbered within a scope (a sample's slots, a list's places): a new row takes the next
number, and a clash with a row another transaction numbered the same at once retries."""

from __future__ import annotations

from typing import Any, TypeVar

from django.db import IntegrityError, models, transaction
from django.db.models import Max

M = TypeVar("M", bound=models.Model)

ATTEMPTS = 8


def create_numbered(model: type[M], *, scope: dict[str, Any], **fields: Any) -> M:
    """A new ``model`` row with ``scope`` and ``fields`` and ``number`` one above the highest
    among the rows of ``scope``; the unique constraint on (scope, number) refuses a number
    taken meanwhile, and the next attempt reads the highest again."""
    for _ in range(ATTEMPTS):
        top = model._default_manager.filter(**scope).aggregate(top=Max("number"))["top"]
        try:
            with transaction.atomic():
                return model._default_manager.create(**scope, **fields, number=(top or 0) + 1)
        except IntegrityError:
            continue
    raise IntegrityError(f"could not number a new {model._meta.verbose_name}")
