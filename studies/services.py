"""Writes for crowd studies: keyword-only, typed, atomic.

Researcher side: ``study_create``, ``study_update``, ``study_open``/``pause``/``close``,
``participant_exclude``/``participant_include`` (any rater; a participant's slots follow;
the study page's confirmed change is ``studies.exclusions``). Participant side:
``arrival_check`` (the PID and STUDY_ID rules), ``participant_arrive`` (consent: create +
reserve), ``participant_qualify``, ``item_save``, ``participants_expire``. Views call exactly
one write.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from django.db import IntegrityError, connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from annotations.models import (
    Rater,
    RaterExclusion,
    Sample,
    SenseCandidate,
    TaskKind,
)
from annotations.services import rater_exclude, rater_include

from . import defaults, holds, late, qualification, sql
from .assignment import (
    BatchUnavailable,
    batch_problem,
    batch_reserve,
    growth_pending,
    pending_holds_block,
    slots_create,
    slots_grow,
    slots_release,
    slots_restore,
    slots_void,
)
from .errors import StudyBusy, StudyError
from .holds import hold_end as _expire
from .models import AttentionAnswer, CheckQuestion, Participant, Slot, Study, StudySample
from .selectors import (
    BatchRow,
    Item,
    batch_item,
    batch_rows,
    first_open_position,
    item_from,
    item_query,
    participant_by_token,
    participant_row,
)

OPTIONAL_ID_RE = re.compile(r"^[A-Za-z0-9_-]{0,64}$")


class StudyFull(StudyError):
    pass


class SessionOver(StudyError):
    """The participant can no longer rate (finished, screened out or timed out)."""


class TextChanged(StudyError):
    """The item's text was edited after the page was shown: nothing is stored."""


# --- researcher side -----------------------------------------------------------------


def _set_samples(study: Study, samples: QuerySet[Sample] | list[Sample]) -> None:
    StudySample.objects.filter(study=study).delete()
    if isinstance(samples, QuerySet):
        ids = list(samples.values_list("id", flat=True))
    else:
        ids = [s if isinstance(s, int) else s.id for s in samples]
    other = Sample.objects.filter(id__in=ids).kinds() - {study.task_kind}
    if other:
        raise StudyError(
            f"A {study.get_task_kind_display().lower()} study takes only samples of that kind "
            f"(these include: {', '.join(sorted(other))})."
        )
    StudySample.objects.bulk_create(
        [StudySample(study=study, sample_id=s) for s in ids], batch_size=1000
    )


@transaction.atomic
def study_create(
    *, title: str, slug: str, samples: QuerySet[Sample] | list, by=None, **fields
) -> Study:
    """A draft study with the paper's guidelines, qualification questions and fresh codes
    unless ``fields`` says otherwise."""
    kind = defaults.for_kind(fields.get("task_kind", TaskKind.PLAUSIBILITY))
    fields.setdefault("guidelines", kind.guidelines)
    fields.setdefault("completion_code", defaults.new_code())
    fields.setdefault("screenout_code", defaults.new_code())
    fields.setdefault("attention_checks_per_batch", kind.attention_checks_per_batch)
    questions = fields.pop("questions", None) or kind.checks
    study = Study.objects.create(title=title, slug=slug, created_by=by, **fields)
    CheckQuestion.objects.bulk_create(
        CheckQuestion(study=study, order=i, **q) for i, q in enumerate(questions)
    )
    _set_samples(study, samples)
    return study


@transaction.atomic
def study_update(*, study: Study, samples=None, **fields) -> Study:
    """Change settings; the sample set can only change while the study is a draft."""
    study = Study.objects.select_for_update().get(pk=study.pk)
    started = study.status != Study.Status.DRAFT
    if started and fields.get("task_kind", study.task_kind) != study.task_kind:
        raise StudyError("The task kind can only be changed while the study is a draft.")
    study.task_kind = fields.pop("task_kind", study.task_kind)
    if samples is not None:
        if started:
            raise StudyError("Samples can only be changed while the study is a draft.")
        _set_samples(study, samples)
    if started and fields.get("ratings_per_sample", study.ratings_per_sample) < (
        study.ratings_per_sample
    ):
        raise StudyError("Ratings per sample cannot go down once the study has been opened.")
    for name, value in fields.items():
        setattr(study, name, value)
    study.save()
    return study


@transaction.atomic
def study_open(*, study: Study) -> Study:
    """Open (or reopen) the study, creating its slots; refused with the reason when no batch
    can be formed under the assignment rules."""
    study = Study.objects.select_for_update().get(pk=study.pk)
    if study.status == Study.Status.CLOSED:
        raise StudyError("A closed study cannot be opened again.")
    problem = batch_problem(study)
    if problem:
        raise StudyError(problem)
    slots_create(study)
    study.status = Study.Status.OPEN
    study.save(update_fields=["status"])
    return study


def _set_status(study: Study, status: str, allowed: tuple[str, ...]) -> Study:
    study = Study.objects.select_for_update().get(pk=study.pk)
    if study.status not in allowed:
        raise StudyError(f"A {study.get_status_display().lower()} study cannot be {status}.")
    study.status = status
    study.save(update_fields=["status"])
    return study


@transaction.atomic
def study_pause(*, study: Study) -> Study:
    """Stop new arrivals; participants already rating can finish."""
    return _set_status(study, Study.Status.PAUSED, (Study.Status.OPEN,))


@transaction.atomic
def study_close(*, study: Study) -> Study:
    """End the study for good: no new arrivals and it cannot be opened again. Participants
    who already started can finish their batch within their hold and get the completion
    code (nobody who started is left without one)."""
    return _set_status(
        study, Study.Status.CLOSED, (Study.Status.DRAFT, Study.Status.OPEN, Study.Status.PAUSED)
    )


@transaction.atomic
def participant_exclude(*, rater: Rater, source: str, reason: str, by=None) -> RaterExclusion:
    """Take any rater out of the aggregates (``annotations.services.rater_exclude``) and,
    where the rater is a study participant, void their slots so that each of their samples
    gets a replacement rating. Every exclusion that may hit a participant goes through
    here (study page, annotator-quality dashboard, failed attention check)."""
    exclusion = rater_exclude(rater=rater, source=source, reason=reason, by=by)
    for participant in Participant.objects.filter(rater=rater):
        slots_void(participant)
    return exclusion


@transaction.atomic
def participant_include(*, rater: Rater, by=None, reason: str = "") -> int:
    """Undo :func:`participant_exclude`: the ratings count again and the participant's
    rated slots are restored (unclaimed replacements withdrawn). Returns how many samples
    went above the wanted number of ratings because a replacement was already taken."""
    rater_include(rater=rater, by=by, reason=reason)
    return sum(slots_restore(p) for p in Participant.objects.filter(rater=rater))


# --- participant side ----------------------------------------------------------------


class InvalidArrival(StudyError):
    """The arrival link's parameters are refused; ``field`` names the parameter."""

    def __init__(self, field: str, reason: str):
        super().__init__(reason)
        self.field = field


class OtherBrowser(StudyError):
    """This PID already started the study in another browser (no resume token)."""


def arrival_check(*, study: Study, pid: str | None, study_id: str = "", session_id: str = ""):
    """Refuse an arrival link whose PID does not match the study's pattern, whose STUDY_ID
    differs from the study's Prolific study id (when one is set) or whose SESSION_ID is
    malformed. The one rule for both the arrival page and the consent POST."""
    if not pid or len(pid) > 64 or not re.fullmatch(study.pid_pattern, pid):
        raise InvalidArrival("PROLIFIC_PID", "The participant ID in this link is not valid.")
    if study.prolific_study_id and study_id != study.prolific_study_id:
        raise InvalidArrival("STUDY_ID", "This link's STUDY_ID is not this study's.")
    if not OPTIONAL_ID_RE.match(study_id or ""):
        raise InvalidArrival("STUDY_ID", "This link's STUDY_ID is not valid.")
    if not OPTIONAL_ID_RE.match(session_id or ""):
        raise InvalidArrival("SESSION_ID", "This link's SESSION_ID is not valid.")


def resume_hash(token: str) -> str:
    """What is stored of a browser's resume token: its SHA-256 (the cookie keeps the token)."""
    return hashlib.sha256(token.encode()).hexdigest()


def participant_arrive(
    *,
    study: Study,
    pid: str,
    study_id: str = "",
    session_id: str = "",
    resume_hash: str = "",
    client: str = "",
) -> Participant:
    """Consent: the participant for ``pid`` with a freshly reserved batch, held briefly
    until the qualification test. An existing PID is returned only to the browser whose
    resume token hash matches (``OtherBrowser`` otherwise). Raises ``InvalidArrival``,
    ``StudyError`` (not open), ``StudyBusy`` (too many unqualified holds, or every place is
    held by someone who has not qualified yet: try again in a few minutes) or ``StudyFull``;
    a refused arrival stores nothing. No transaction is held across the retries. ``client``
    (``ambisite.ratelimit.client_key``) is held to its caps (``holds.hold_admit``)."""
    arrival_check(study=study, pid=pid, study_id=study_id, session_id=session_id)
    existing = holds.pid_owner(study=study, pid=pid)
    if existing:
        return _resumed(existing, resume_hash)
    if study.status != Study.Status.OPEN:
        raise StudyError("This study is not open.")
    if holds.unqualified_count(study) >= study.max_unqualified:
        raise StudyBusy("Many people are starting this study right now.")

    def create() -> Participant:
        held_until = holds.hold_admit(study=study, client=client)
        rater = Rater.objects.create(kind=Rater.Kind.PARTICIPANT, pseudonym=new_pseudonym())
        return Participant.objects.create(
            study=study,
            rater=rater,
            prolific_pid=pid,
            prolific_study_id=study_id,
            prolific_session_id=session_id,
            resume_hash=resume_hash,
            client=client,
            held_until=held_until,
        )

    for sweep in (False, True):
        # late sessions give their places back; an adaptive study may add places
        if sweep and not (participants_expire(study=study) + slots_grow(study)):
            break  # nothing was late and nothing grew: the study really is full
        try:
            return batch_reserve(create=create)
        except IntegrityError:  # the same PID arrived twice at once
            existing = Participant.objects.filter(study=study, prolific_pid=pid).first()
            if existing is None:
                raise
            return _resumed(existing, resume_hash)
        except BatchUnavailable:
            continue
    return _no_batch(study, pid, resume_hash)


def _no_batch(study: Study, pid: str, resume_hash: str) -> Participant:
    """No batch was free for this arrival. A retry of a consent whose first request did
    commit (its answer was lost) resumes it; when the places are held by people who have not
    qualified yet the study is busy (some may free up within minutes), else it is full."""
    existing = Participant.objects.filter(study=study, prolific_pid=pid).first()
    if existing:
        return _resumed(existing, resume_hash)
    if pending_holds_block(study):
        raise StudyBusy("The places in this study are held by people who are just starting.")
    if growth_pending(study):
        raise StudyBusy("More places open as the ratings being given now come in.")
    raise StudyFull("All places in this study are taken.")


def _resumed(participant: Participant, resume_hash: str) -> Participant:
    if not resume_hash or resume_hash != participant.resume_hash:
        raise OtherBrowser("This Prolific ID has already started the study in another browser.")
    return participant


def new_pseudonym() -> str:
    """A random rater name for a participant: never derived from the Prolific ID."""
    return f"p-{secrets.token_hex(8)}"


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


def _holds_lock(participant: Participant) -> bool:
    """Whether ``participant`` was read locked (``participant_locked``) in a transaction
    block that is still open, so its row is still locked and its fields are current."""
    block = getattr(participant, "_locked_in", None)
    return block is not None and any(b is block for b in connection.atomic_blocks)


def _locked(participant: Participant) -> Participant:
    """The participant row again, locked until the transaction ends (the study row every
    rater shares is never locked; the study comes along from ``participant``); the instance
    itself when the caller holds its lock already (``participant_locked``)."""
    if _holds_lock(participant):
        return participant
    locked = participant_row([participant.pk], lock=True)
    Participant.study.field.set_cached_value(locked, participant.study)
    return locked


def participant_qualify(*, participant: Participant, answers: dict[int, int]) -> bool:
    """Grade the one-attempt qualification test; failing screens the participant out and
    releases their batch. A second attempt changes nothing. Answers past the brief hold are
    kept and graded (``studies.late``): the participant goes on if their batch is still
    held, else is timed out (committed) and ``SessionOver`` is raised."""
    with transaction.atomic():
        participant = _locked(participant)
        if participant.is_late() and not late.may_go_on(participant):
            _expire(participant)
        passed = _qualify(participant, answers)
    if participant.status == Participant.Status.TIMED_OUT:
        raise SessionOver("Your time for this study has run out.")
    return passed


def _qualify(participant: Participant, answers: dict[int, int]) -> bool:
    if not late.answering_late(participant):
        return participant.status != Participant.Status.SCREENED_OUT
    questions = qualification.participant_questions(participant)
    passed = qualification.grade(questions, answers)
    participant.qualification_answers = {str(q.pk): answers.get(q.pk) for q in questions}
    participant.qualification_late = participant.is_late()
    if participant.status == Participant.Status.TIMED_OUT:  # the batch went to others
        late.keep_late_answers(participant, passed)
    elif passed:
        participant.status = Participant.Status.QUALIFIED
        participant.qualified_at = timezone.now()
    else:
        participant.status = Participant.Status.SCREENED_OUT
        participant.finished_at = timezone.now()
        slots_release(participant)
    participant.save()
    return passed


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
    may not rate any more (a late participant is timed out first, committed),
    ``StudyError`` for an item not in the batch or beyond the first open one. Four queries:
    lock the participant, read the batch's rows, mark the slot done (compare-and-set) and
    upsert the rating (on PostgreSQL one statement, which also reads the next item); three
    inside ``participant_locked``, which read and locked the participant already (no
    savepoint then either: what this raises rolls the caller's block back)."""
    with transaction.atomic(savepoint=not _holds_lock(participant)):
        participant = _locked(participant)
        late = participant.is_late() and _expire(participant)
        if not late:
            return _item_save(participant, position, answer, with_next)
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
    write, params = _rating_sql(participant, row.sample_id, answer, now)  # type: ignore[arg-type]
    following = None
    with connection.cursor() as cursor:
        if claim and connection.vendor == "postgresql":
            # one round trip (``sql.claim_and_rate``)
            item_sql, item_params = (
                item_query(participant, then_read) if then_read is not None else (None, [])
            )
            statement = sql.claim_and_rate(claim, write, item_sql)
            cursor.execute(statement, [now, row.id, participant.pk, *params, *item_params])
            claimed, written, *following = cursor.fetchone()
        else:
            claimed = 1
            if claim:
                cursor.execute(claim, [now, row.id, participant.pk])
                claimed = cursor.rowcount
            if claimed == 1:
                cursor.execute(write + " " + sql.RATING_CONFLICT, params)
                written = cursor.rowcount
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


def _rating_sql(participant: Participant, sample_id: int, answer: Answer, now):
    """(sql, params) of the rating's ``INSERT ... SELECT ... WHERE ...``
    (``sql.rating_insert``), to be completed by ``sql.RATING_CONFLICT`` (``ON CONFLICT
    (rater, sample) DO UPDATE``; PostgreSQL and SQLite), so that a caller can add a
    condition to the WHERE first. The rating takes the versions of the sample's setup, story
    and sense texts as they are now, and when the page said which versions it showed
    (``text_version``) no row is written unless they still match (the caller raises
    ``TextChanged`` and the transaction rolls back). A re-save updates the answer and keeps
    the first ``started_at`` and ``created_at``."""
    started = connection.ops.adapt_datetimefield_value(answer.started_at)
    shown = [int(v) for v in answer.text_version.split(".")] if answer.text_version else []
    kind, study = participant.study.task_kind, sql.ShownSql.params(participant.study_id)
    params = [participant.rater_id, kind, answer.score, answer.nonsensical, answer.comment]
    statement = sql.rating_insert(check_shown=bool(shown))
    return statement, [*params, started, now, now, *study, sample_id, *shown]


def _save_check(participant: Participant, position: int, answer: Answer) -> None:
    check = (
        AttentionAnswer.objects.select_for_update()
        .select_related("question")
        .filter(participant=participant, position=position)
        .first()
    )
    if check is None:
        raise StudyError("There is no such item in your batch.")
    check.score = answer.score
    check.nonsensical = answer.nonsensical
    check.comment = answer.comment
    check.started_at = check.started_at or answer.started_at
    check.answered_at = timezone.now()
    if check.passed is None:  # the first answer is the one graded
        check.passed = check.question.accepts(answer.score)
        if not check.passed:
            q = check.question
            participant_exclude(
                rater=participant.rater,
                source=RaterExclusion.Source.ATTENTION_CHECK,
                reason=f'Attention check "{q.homonym}": expected {q.expected}±{q.tolerance}, '
                f"answered {answer.score}.",
            )
    check.save()


def participants_expire(*, study: Study | None = None, now: datetime | None = None) -> int:
    """Time out the participants past their hold (``Participant.deadline``) and release
    their unrated slots for the next arrivals; one short transaction per participant, so
    it is safe to run from any number of processes at once. Run from cron and by an
    arrival that finds its study full, never inside a request's other transaction."""
    now = now or timezone.now()
    studies = [study] if study else Study.objects.exclude(status=Study.Status.DRAFT)
    count = 0
    for st in studies:
        for participant in Participant.objects.filter(study=st).filter(holds.late(st, now)):
            with transaction.atomic():
                count += _expire(participant)
    return count
