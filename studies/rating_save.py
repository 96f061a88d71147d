"""The participant's rating path, its write: the answer to one item of a batch (a rating of
a sample, or an attention check), with the slot's compare-and-set and, on PostgreSQL, the
next page's item read in the same statement (``studies.sql``). ``studies.services``
re-exports ``Answer``, ``Saved`` and ``item_save``; the reads are ``studies.selectors``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from django.db import connection, transaction
from django.utils import timezone

from annotations.data_versions import SHARDS, new_stamp
from annotations.kinds import kind as kind_of
from annotations.models import (
    Rater,
    SenseCandidate,
    TaskKind,
)

from . import sql
from .assignment import (
    slots_restore,
)
from .counterbalance import sentence_order
from .errors import SessionOver, StudyError, TextChanged
from .exclusions import attention_check_graded
from .holds import hold_end as _expire
from .late import answer_in_flight
from .locks import holds_lock, locked, own_row
from .models import AttentionAnswer, Participant, Slot, Study
from .selectors import (
    BatchRow,
    Item,
    batch_item,
    batch_rows,
    first_open_position,
    item_from,
    item_query,
)


@dataclass
class Answer:
    score: int
    nonsensical: bool = False
    comment: str = ""
    started_at: datetime | None = None
    text_version: str = ""  # "setup.story.sense" versions the page showed; "" = current


class Saved(NamedTuple):
    """What ``item_save`` leaves: the first item still open (None: the participant is now
    finished) and the batch's rows as they are after the save (the page of the next item
    is built from them without reading them again)."""

    next_position: int | None
    rows: list[BatchRow]
    next_item: Item | None = None  # with ``with_next``: the item at ``next_position``


def item_save(
    *, participant: Participant, position: int, answer: Answer, with_next: bool = False
) -> Saved:
    """Save the answer for the item at ``position`` of the participant's batch; returns the
    first item still open and the batch's rows after the save, and with ``with_next`` that
    item too (for the page that follows). Saving the same item again updates it
    (UNIQUE(rater, sample): never two ratings). Raises ``SessionOver`` when the participant
    may not rate any more (a late participant is timed out first, committed; an answer that
    was sent just before the time limit, ``late.answer_in_flight``, is saved and the
    participant is then timed out: the caller sees its status),
    ``StudyError`` for an item not in the batch or beyond the first open one. Four queries:
    lock the participant, read the batch's rows, mark the slot done (compare-and-set) and
    upsert the rating (on PostgreSQL one statement, which also reads the next item); three
    inside ``participant_locked``, which read and locked the participant already (no
    savepoint then either: what this raises rolls the caller's block back)."""
    with transaction.atomic(savepoint=not holds_lock(participant)):
        participant = locked(participant)
        if not participant.is_late():
            return _item_save(participant, position, answer, with_next)
        if answer_in_flight(participant):  # sent before the limit, arrived just after it
            saved = _item_save(participant, position, answer, with_next=False)
            if saved.next_position is not None:
                _expire(participant)  # the rest of the batch goes to others
            return saved
        _expire(participant)
    raise SessionOver("Your time for this study has run out.")


def _item_save(participant: Participant, position: int, answer: Answer, with_next: bool) -> Saved:
    if participant.status != Participant.Status.QUALIFIED:
        raise SessionOver("This session can no longer be changed.")
    rows = batch_rows(participant.pk)
    row = next((r for r in rows if r.position == position), None)
    if row is None:
        raise StudyError("There is no such item in your batch.")
    if not row.answered and position != first_open_position(rows):
        raise StudyError("Please answer the items in order.")
    status = Slot.Status.DONE if row.status == Slot.Status.RESERVED else row.status
    after = [r._replace(answered=True, status=status) if r is row else r for r in rows]
    following = first_open_position(after)  # the same rule as the pages
    then = (
        next(r for r in rows if r.position == following)
        if following is not None and with_next
        else None
    )
    values = None
    if row.kind == "s":
        _check_choice(participant.study, row.sample_id, answer.score)
        values = _save_rating(participant, row, answer, then_read=then)
    else:
        _save_check(participant, position, answer)
    if following is not None:
        if then is None:
            return Saved(following, after)
        if values is not None and values[0] is not None:  # read with the write
            item = item_from(participant, then, values)
        else:
            item = batch_item(participant, then)
        return Saved(following, after, item)
    participant.status = Participant.Status.FINISHED
    participant.finished_at = timezone.now()
    participant.save(update_fields=["status", "finished_at"])
    return Saved(None, after)


def _save_rating(
    participant: Participant, row: BatchRow, answer: Answer, then_read: BatchRow | None = None
) -> Sequence | None:
    """Mark the slot of ``row`` done and write the rating; with ``then_read``, the values of
    that row's item (``selectors.item_query``) when they were read in the same statement (a
    first save on PostgreSQL), else None."""
    # compare-and-set: a slot released by a concurrent timeout is not ours any more
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    claim: str | None = None
    if row.status == Slot.Status.RESERVED:
        claim = sql.slot_done()
    elif not row.answered:  # a void slot rated for the first time
        claim = sql.slot_void_done()
    # else a re-save: the row was read under the participant's lock
    bump: list[str | int | None] = [
        participant.study.task_kind,
        participant.pk % SHARDS,
        new_stamp(),
        row.sample_id,
    ]
    write, params = _rating_sql(participant, row.sample_id, row.number, answer, now)  # type: ignore[arg-type]
    following = None
    with connection.cursor() as cursor:
        if claim and connection.vendor == "postgresql":
            # one round trip (``sql.claim_and_rate``)
            item_sql, item_params = (
                item_query(participant, then_read) if then_read is not None else (None, [])
            )
            statement = sql.claim_and_rate(claim, write, item_sql)
            cursor.execute(statement, [now, row.id, participant.pk, *params, *bump, *item_params])
            claimed, written, *following = cursor.fetchone()
        else:
            claimed = 1
            if claim:
                cursor.execute(claim, [now, row.id, participant.pk])
                claimed = cursor.rowcount
            if claimed == 1:
                cursor.execute(write + " " + sql.RATING_CONFLICT, params)
                written = cursor.rowcount
                if written == 1:
                    cursor.execute(sql.data_bump(), bump)
        if claimed != 1:
            raise SessionOver("This item is no longer reserved for you.")
        if written != 1:
            raise TextChanged(
                "The text of this item has just been corrected; please read it again."
            )
    if row.status == Slot.Status.VOID and not _is_excluded(participant):
        slots_restore(participant)  # included again while still rating: count this one
    return following or None


def _check_choice(study: Study, sample_id: int | None, score: int) -> None:
    """A sense-choice answer names one of the sample's candidates (the form only knows the
    kind's range)."""
    if study.task_kind != TaskKind.SENSE_CHOICE:
        return
    if sample_id is None or not (
        SenseCandidate.objects.filter(sample_id=sample_id, index=score).exists()
    ):
        raise StudyError("Please choose one of the meanings shown.")


def _is_excluded(participant: Participant) -> bool:
    return Rater.objects.excluded().filter(pk=participant.rater_id).exists()


def _rating_sql(participant: Participant, sample_id: int, number: int | None, answer: Answer, now):
    """(sql, params) of the rating's ``INSERT ... SELECT ... WHERE ...``
    (``sql.rating_insert``), to be completed by ``sql.RATING_CONFLICT`` (``ON CONFLICT
    (rater, sample) DO UPDATE``; PostgreSQL and SQLite), so that a caller can add a
    condition to the WHERE first. The rating takes the versions of the sample's setup, story
    and sense texts as they are now, and when the page said which versions it showed
    (``text_version``) no row is written unless they still match (the caller raises
    ``TextChanged`` and the transaction rolls back). A re-save updates the answer and keeps
    the first ``started_at`` and ``created_at``. A pair's rating records the order shown from
    slot ``number`` (``studies.counterbalance``), the rule the page followed."""
    started = connection.ops.adapt_datetimefield_value(answer.started_at)
    shown = [int(v) for v in answer.text_version.split(".")] if answer.text_version else []
    kind, study = participant.study.task_kind, sql.ShownSql.params(participant.study_id)
    order = sentence_order(pairs=kind_of(kind).sentence_pairs, number=number, sample_id=sample_id)
    params = [participant.rater_id, kind, answer.score, answer.nonsensical, answer.comment, order]
    statement = sql.rating_insert(check_shown=bool(shown))
    return statement, [*params, started, now, now, *study, sample_id, *shown]


def _save_check(participant: Participant, position: int, answer: Answer) -> None:
    check = own_row(
        AttentionAnswer.objects.select_related("question"), participant, position=position
    )
    if check is None:
        raise StudyError("There is no such item in your batch.")
    check.score = answer.score
    check.nonsensical = answer.nonsensical
    check.comment = answer.comment
    check.started_at = check.started_at or answer.started_at
    check.answered_at = timezone.now()
    if check.passed is None:  # the first answer is the one graded
        check.passed = check.question.accepts(answer.score, participant.study.task_kind)
        attention_check_graded(
            participant=participant, question=check.question, score=answer.score,
            passed=check.passed,
        )  # fmt: skip
    check.save()
