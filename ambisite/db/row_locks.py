"""Row locks taken in one order, so that two transactions that lock some of the same rows
wait for each other instead of deadlocking."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import models


def locked_in_id_order(
    objects: type[models.Model] | models.QuerySet, pks: Iterable[int], *fields: str
) -> list[tuple]:
    """Lock the rows of ``objects`` (a model or a queryset of one) with these primary keys
    until the transaction ends, in id order, and return ``(pk, *fields)`` of each in that
    order. ``FOR NO KEY UPDATE``: a row that points at a locked one (a foreign key) needs
    only its key to stay, so inserting or changing such a row neither waits on this lock
    nor holds it up."""
    rows = objects if isinstance(objects, models.QuerySet) else objects._default_manager.all()
    locked = rows.select_for_update(no_key=True).filter(pk__in=set(pks)).order_by("pk")
    return list(locked.values_list("pk", *fields))
