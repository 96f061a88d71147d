"""Locking a participant: the one helper every write of a participant's batch goes through
(the qualification, the rating save and the rating page's POST, writing's saves).
``participant_locked`` reads and locks the participant of a request in one query;
``locked`` locks it (again) only when the caller does not hold its lock already;
``own_row`` locks the item of the batch being answered."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

from django.db import connection, models, transaction
from django.db.models import QuerySet

from .models import Participant
from .selectors import (
    participant_by_token,
    participant_row,
)


@contextmanager
def participant_locked(*, slug: str, token_hash: str | None) -> Iterator[Participant | None]:
    """One transaction for a participant's request that writes: the browser's participant in
    study ``slug`` (``None`` without one), read by its resume-token hash and locked
    (``SELECT ... FOR UPDATE``) in one query, with its study. The services called in the
    block (``item_save``) use it as it is instead of reading and locking it again: one
    round trip less per rated item. What the block raises rolls the whole of it back."""
    with transaction.atomic():
        participant = participant_by_token(slug, token_hash, lock=True) if token_hash else None
        if participant is not None:
            participant._locked_in = connection.atomic_blocks[-1]  # type: ignore[attr-defined]
        yield participant


def holds_lock(participant: Participant) -> bool:
    """Whether ``participant`` was read locked (``participant_locked``) in a transaction
    block that is still open, so its row is still locked and its fields are current."""
    block = getattr(participant, "_locked_in", None)
    return block is not None and any(b is block for b in connection.atomic_blocks)


def locked(participant: Participant) -> Participant:
    """The participant row again, locked until the transaction ends (the study row every
    rater shares is never locked; the study comes along from ``participant``); the instance
    itself when the caller holds its lock already (``participant_locked``)."""
    if holds_lock(participant):
        return participant
    locked = participant_row([participant.pk], lock=True)
    Participant.study.field.set_cached_value(locked, participant.study)
    return locked


_Row = TypeVar("_Row", bound=models.Model)


def own_row(rows: QuerySet[_Row], participant: Participant, **lookup) -> _Row | None:
    """The participant's own row of ``rows`` that ``lookup`` names (an item of their batch:
    an attention check, a writer's draw or ending slot), locked until the transaction
    ends, so that an answer sent twice at once is saved once; None when it is not
    theirs. With ``locked``: the one "lock participant, lock item" of every save."""
    return rows.select_for_update().filter(participant=participant, **lookup).first()
