"""Rows numbered within a scope of one study (a sample's slots, a list's places): a new row
takes the next number. Every writer of new numbers in a study takes ``numbers_lock`` first,
so none reads a highest number another is about to take: opening and more ratings per sample
(``assignment.slots_create``, ``lists.lists_create``), a growth round and the replacements
here (exclusions, text corrections, list places given back). A clash with a writer that
numbers without it (a list arrival's item slots) retries."""

from __future__ import annotations

from typing import Any, TypeVar

from django.db import IntegrityError, models, transaction
from django.db.models import Max

from .models import Study

M = TypeVar("M", bound=models.Model)

ATTEMPTS = 8


def numbers_lock(study_id: int) -> None:
    """Hold the study row until the transaction ends, against every other writer of new
    numbers in the study. FOR NO KEY UPDATE, which the FOR UPDATE of a settings change or
    a growth round waits for (and they for it), but not an arrival's foreign-key checks
    (FOR KEY SHARE). Without it a replacement numbered while the ratings per sample went up
    took the next number first and then waited for the study row (its foreign-key check)
    while the settings change's new slot of that number waited for the replacement: a
    deadlock, and PostgreSQL failed one of the two."""
    Study.objects.select_for_update(no_key=True).filter(pk=study_id).values_list("pk").first()


def create_numbered(model: type[M], *, study_id: int, scope: dict[str, Any], **fields: Any) -> M:
    """A new ``model`` row of the study with ``scope`` and ``fields`` and ``number`` one above
    the highest among the rows of ``scope``, under ``numbers_lock``; the unique constraint
    on (scope, number) refuses a number taken meanwhile by a writer without the lock, and
    the next attempt reads the highest again."""
    numbers_lock(study_id)
    rows = model._default_manager.filter(study_id=study_id, **scope)
    for _ in range(ATTEMPTS):
        top = rows.aggregate(top=Max("number"))["top"]
        try:
            with transaction.atomic():
                return model._default_manager.create(
                    study_id=study_id, **scope, **fields, number=(top or 0) + 1
                )
        except IntegrityError:
            continue
    raise IntegrityError(f"could not number a new {model._meta.verbose_name}")
