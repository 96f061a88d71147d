"""Writes for crowd studies: keyword-only, typed, atomic.

Researcher side: ``study_create``, ``study_update``, ``study_open``/``pause``/``close``,
``participant_toggle_exclusion``, ``participant_exclude``/``participant_include`` (any
rater; a participant's slots follow). Participant side: ``participant_arrive``,
``participant_qualify``, ``item_save``, ``participants_expire``. Views call exactly one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from annotations.models import Rater, RaterExclusion, Rating, Sample
from annotations.services import rater_exclude, rater_include

from . import defaults
from .assignment import (
    BatchUnavailable,
    batch_problem,
    slots_create,
    slots_release,
    slots_restore,
    slots_void,
)
from .models import AttentionAnswer, CheckQuestion, Participant, Slot, Study, StudySample

PID_RE = re.compile(r"^[A-Za-z0-9]{8,64}$")
OPTIONAL_ID_RE = re.compile(r"^[A-Za-z0-9_-]{0,64}$")


class StudyError(Exception):
    """A study action refused, with a reason a person can read."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class StudyFull(StudyError):
    pass


class SessionOver(StudyError):
    """The participant can no longer rate (finished, screened out or timed out)."""


# --- researcher side -----------------------------------------------------------------


def _set_samples(study: Study, samples: QuerySet[Sample] | list[Sample]) -> None:
    StudySample.objects.filter(study=study).delete()
    ids = samples.values_list("id", flat=True) if isinstance(samples, QuerySet) else samples
    StudySample.objects.bulk_create(
        [StudySample(study=study, sample_id=getattr(s, "id", s)) for s in ids], batch_size=1000
    )


@transaction.atomic
def study_create(
    *, title: str, slug: str, samples: QuerySet[Sample] | list, by=None, **fields
) -> Study:
    """A draft study with the paper's guidelines, qualification questions and fresh codes
    unless ``fields`` says otherwise."""
    fields.setdefault("guidelines", defaults.GUIDELINES)
    fields.setdefault("completion_code", defaults.new_code())
    fields.setdefault("screenout_code", defaults.new_code())
    questions = fields.pop("questions", None) or defaults.QUALIFICATION
    study = Study.objects.create(title=title, slug=slug, created_by=by, **fields)
    CheckQuestion.objects.bulk_create(
        CheckQuestion(study=study, order=i, **q) for i, q in enumerate(questions)
    )
    _set_samples(study, samples)
    return study


@transaction.atomic
def study_update(*, study: Study, samples=None, by=None, **fields) -> Study:
    """Change settings; the sample set can only change while the study is a draft."""
    study = Study.objects.select_for_update().get(pk=study.pk)
    started = study.status != Study.Status.DRAFT
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
def study_open(*, study: Study, by=None) -> Study:
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
def study_pause(*, study: Study, by=None) -> Study:
    """Stop new arrivals; participants already rating can finish."""
    return _set_status(study, Study.Status.PAUSED, (Study.Status.OPEN,))


@transaction.atomic
def study_close(*, study: Study, by=None) -> Study:
    """End the study for good: no arrivals, no further ratings."""
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
def participant_include(*, rater: Rater, by=None) -> int:
    """Undo :func:`participant_exclude`: the ratings count again and the participant's
    rated slots are restored (unclaimed replacements withdrawn). Returns how many samples
    went above the wanted number of ratings because a replacement was already taken."""
    rater_include(rater=rater, by=by)
    return sum(slots_restore(p) for p in Participant.objects.filter(rater=rater))


@transaction.atomic
def participant_toggle_exclusion(*, participant: Participant, by=None) -> bool:
    """Include an excluded participant again, or exclude an included one. Returns whether
    the participant's ratings count now. Slots follow, so samples keep N valid ratings."""
    rater = participant.rater
    if _is_excluded(participant):
        participant_include(rater=rater, by=by)
        return True
    participant_exclude(
        rater=rater, source=RaterExclusion.Source.MANUAL, reason="Study page", by=by
    )
    return False


# --- participant side ----------------------------------------------------------------


def pid_is_valid(pid: str | None) -> bool:
    return bool(pid) and bool(PID_RE.match(pid))


@transaction.atomic
def participant_arrive(
    *, study: Study, pid: str, study_id: str = "", session_id: str = ""
) -> Participant:
    """The participant for ``pid``: the existing one (resume), or a new one with a reserved
    batch. Raises ``StudyFull`` (nothing stored) when no batch can be formed, ``StudyError``
    when the study is not open."""
    existing = Participant.objects.filter(study=study, prolific_pid=pid).first()
    if existing:
        return existing
    if study.status != Study.Status.OPEN:
        raise StudyError("This study is not open.")
    participants_expire(study=study)
    try:
        with transaction.atomic():
            return _participant_create(study, pid, study_id, session_id)
    except IntegrityError:  # the same PID arrived twice at once
        return Participant.objects.get(study=study, prolific_pid=pid)
    except BatchUnavailable as exc:
        raise StudyFull("All places in this study are taken.") from exc


def _participant_create(study: Study, pid: str, study_id: str, session_id: str) -> Participant:
    from .assignment import batch_reserve

    rater = Rater.objects.create(kind=Rater.Kind.PARTICIPANT, pseudonym=f"{study.pk}:{pid}")
    participant = Participant.objects.create(
        study=study,
        rater=rater,
        prolific_pid=pid,
        prolific_study_id=study_id if OPTIONAL_ID_RE.match(study_id) else "",
        prolific_session_id=session_id if OPTIONAL_ID_RE.match(session_id) else "",
    )
    batch_reserve(participant=participant)
    return participant


def _locked(participant: Participant) -> Participant:
    return Participant.objects.select_for_update().select_related("study").get(pk=participant.pk)


def _check_time(participant: Participant) -> None:
    """Time the participant out (committed) before refusing, when past the deadline."""
    participant = Participant.objects.select_related("study").get(pk=participant.pk)
    if participant.is_active and participant.deadline() < timezone.now():
        with transaction.atomic():
            _expire(participant)
        raise SessionOver("Your time for this study has run out.")


def participant_qualify(*, participant: Participant, answers: dict[int, int]) -> bool:
    """Grade the one-attempt qualification test; failing screens the participant out and
    releases their batch. A second attempt changes nothing."""
    _check_time(participant)
    with transaction.atomic():
        return _qualify(participant, answers)


def _qualify(participant: Participant, answers: dict[int, int]) -> bool:
    participant = _locked(participant)
    if participant.status != Participant.Status.STARTED:
        return participant.status != Participant.Status.SCREENED_OUT
    questions = list(participant.study.check_questions.filter(in_qualification=True))
    passed = all(answers.get(q.pk) is not None and q.accepts(answers[q.pk]) for q in questions)
    participant.qualification_answers = {str(q.pk): answers.get(q.pk) for q in questions}
    if passed:
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


def item_save(*, participant: Participant, position: int, answer: Answer) -> bool:
    """Save the answer for the item at ``position`` of the participant's batch; saving the
    same item again updates it (UNIQUE(rater, sample) means never two ratings). Returns True
    when this was the last open item and the participant is now finished. Raises
    ``SessionOver`` when the participant may not rate any more."""
    _check_time(participant)
    with transaction.atomic():
        return _item_save(participant, position, answer)


def _item_save(participant: Participant, position: int, answer: Answer) -> bool:
    participant = _locked(participant)
    if participant.status != Participant.Status.QUALIFIED:
        raise SessionOver("This session can no longer be changed.")
    if participant.study.status == Study.Status.CLOSED:
        raise SessionOver("This study has been closed.")
    slot = Slot.objects.filter(participant=participant, position=position).first()
    if slot is not None:
        _save_rating(participant, slot, answer)
    else:
        _save_check(participant, position, answer)
    return _finish_if_done(participant)


def _save_rating(participant: Participant, slot: Slot, answer: Answer) -> None:
    # compare-and-set: a slot released by a concurrent timeout is not ours any more
    held = Slot.objects.filter(id=slot.id, participant=participant).exclude(status=Slot.Status.FREE)
    if slot.status == Slot.Status.RESERVED:
        claimed = held.filter(status=Slot.Status.RESERVED).update(
            status=Slot.Status.DONE, done_at=timezone.now()
        )
    else:
        claimed = held.count()
    if claimed != 1:
        raise SessionOver("This item is no longer reserved for you.")
    _rating_write(participant, slot, answer)
    if slot.status == Slot.Status.VOID and not _is_excluded(participant):
        slots_restore(participant)  # included again while still rating: count this one


def _is_excluded(participant: Participant) -> bool:
    return Rater.objects.excluded().filter(pk=participant.rater_id).exists()


def _rating_write(participant: Participant, slot: Slot, answer: Answer) -> None:
    Rating.objects.update_or_create(
        rater_id=participant.rater_id,
        sample_id=slot.sample_id,
        defaults={
            "score": answer.score,
            "nonsensical": answer.nonsensical,
            "comment": answer.comment,
        },
        create_defaults={
            "score": answer.score,
            "nonsensical": answer.nonsensical,
            "comment": answer.comment,
            "started_at": answer.started_at,
        },
    )


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


def _finish_if_done(participant: Participant) -> bool:
    open_slots = Slot.objects.filter(participant=participant, status=Slot.Status.RESERVED)
    rated = set(
        Rating.objects.filter(rater_id=participant.rater_id).values_list("sample_id", flat=True)
    )
    if any(sid not in rated for sid in open_slots.values_list("sample_id", flat=True)):
        return False
    void_unrated = Slot.objects.filter(participant=participant, status=Slot.Status.VOID).exclude(
        sample_id__in=rated
    )
    if void_unrated.exists() or participant.attention_answers.filter(score__isnull=True).exists():
        return False
    participant.status = Participant.Status.FINISHED
    participant.finished_at = timezone.now()
    participant.save(update_fields=["status", "finished_at"])
    return True


def _expire(participant: Participant) -> bool:
    changed = Participant.objects.filter(pk=participant.pk, status__in=Participant.ACTIVE).update(
        status=Participant.Status.TIMED_OUT
    )
    if changed:
        slots_release(participant)
        participant.status = Participant.Status.TIMED_OUT
    return bool(changed)


def participants_expire(*, study: Study | None = None, now: datetime | None = None) -> int:
    """Time out the participants past their study's time limit and release their unrated
    slots for the next arrivals. Safe to run from any number of processes at once."""
    now = now or timezone.now()
    studies = [study] if study else Study.objects.exclude(status=Study.Status.DRAFT)
    count = 0
    for st in studies:
        late = Participant.objects.filter(
            study=st,
            status__in=Participant.ACTIVE,
            started_at__lt=now - timedelta(minutes=st.time_limit_minutes),
        )
        for participant in late:
            with transaction.atomic():
                count += _expire(participant)
    return count
