"""Writes for crowd studies: keyword-only, typed, atomic; the one name other modules and
apps import them by.

Here: the arrival and qualification (``arrival_check``: the PID and STUDY_ID rules;
``participant_arrive``: consent, create + reserve; ``participant_qualify``) and
``participants_expire``. Re-exported from their modules: the researcher's lifecycle
(``studies.lifecycle``: ``study_create``, ``study_update``, ``study_open``/``pause``/
``close``, ``participant_exclude``/``participant_include``), the rating save
(``studies.rating_save``: ``item_save``, ``Answer``, ``Saved``), the participant lock
(``studies.locks.participant_locked``) and the errors (``studies.errors``). Views call
exactly one write.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotations.models import (
    Rater,
)

from . import bot_checks, holds, late, qualification, selectors
from .assignment import (
    BatchUnavailable,
    batch_reserve,
    pending_holds_block,
    slots_release,
)
from .errors import SessionOver as SessionOver
from .errors import StudyBusy, StudyError
from .errors import TextChanged as TextChanged
from .growth import growth_pending, slots_grow
from .holds import hold_end as _expire
from .lifecycle import participant_exclude as participant_exclude
from .lifecycle import participant_include as participant_include
from .lifecycle import study_close as study_close
from .lifecycle import study_create as study_create
from .lifecycle import study_open as study_open
from .lifecycle import study_pause as study_pause
from .lifecycle import study_samples_add as study_samples_add
from .lifecycle import study_update as study_update
from .locks import locked
from .locks import participant_locked as participant_locked
from .models import CheckQuestion, Participant, Study
from .rating_save import Answer as Answer
from .rating_save import Saved as Saved
from .rating_save import item_save as item_save

OPTIONAL_ID_RE = re.compile(r"^[A-Za-z0-9_-]{0,64}$")


class StudyFull(StudyError):
    pass


# --- researcher side -----------------------------------------------------------------


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
    if not OPTIONAL_ID_RE.fullmatch(study_id or ""):
        raise InvalidArrival("STUDY_ID", "This link's STUDY_ID is not valid.")
    if not OPTIONAL_ID_RE.fullmatch(session_id or ""):
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
        participant = Participant.objects.create(
            study=study,
            rater=rater,
            prolific_pid=pid,
            prolific_study_id=study_id,
            prolific_session_id=session_id,
            resume_hash=resume_hash,
            client=client,
            held_until=held_until,
        )
        # the test's draw is stored when its page is first shown (in the consent's answer),
        # not here: an attempt that rolls back (a busy adaptive study) would draw in vain
        return participant

    for sweep in (False, True):
        # late sessions give their places back; an adaptive study may add places
        if sweep and not (participants_expire(study=study) + slots_grow(study)):
            break  # nothing was late and nothing grew: the study really is full
        try:
            return batch_reserve(create=create)
        except IntegrityError:  # the same PID arrived twice at once
            existing = selectors.participant_by_pid(study, pid)
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
    existing = selectors.participant_by_pid(study, pid)
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


def participant_qualify(
    *,
    participant: Participant,
    answers: dict[int, int],
    questions: list[CheckQuestion] | None = None,
    bot_answers: dict[str, str] | None = None,
) -> bool:
    """Grade the one-attempt qualification test; failing screens the participant out and
    releases their batch. A second attempt changes nothing. Answers past the brief hold are
    kept and graded (``studies.late``): the participant goes on if their batch is still
    held, else is timed out (committed) and ``SessionOver`` is raised. ``questions``: the
    ones the page showed (``qualification.participant_questions``), graded without being
    read again while they are still the participant's stored draw. ``participant`` is left
    as stored (no need to read it again). ``bot_answers``: the option chosen for each of
    the participant's bot checks (``qualification.participant_bots``), by question key; one
    wrong or missing answer fails the test as a wrong qualification answer does."""
    with transaction.atomic():
        row = locked(participant)
        if row.is_late() and not late.may_go_on(row):
            _expire(row)
        passed = _qualify(row, answers, questions, bot_answers or {})
    if row is not participant:
        for f in Participant._meta.concrete_fields:
            setattr(participant, f.attname, getattr(row, f.attname))
    if participant.status == Participant.Status.TIMED_OUT:
        raise SessionOver("Your time for this study has run out.")
    return passed


def _qualify(
    participant: Participant,
    answers: dict[int, int],
    shown: list[CheckQuestion] | None,
    bot_answers: dict[str, str],
) -> bool:
    if not late.answering_late(participant):
        return participant.status != Participant.Status.SCREENED_OUT
    questions = (
        shown
        if shown is not None and [q.pk for q in shown] == participant.qualification_draw
        else qualification.participant_questions(participant)
    )
    bots = qualification.participant_bots(participant)
    kind = participant.study.task_kind
    passed = qualification.grade(questions, answers, kind) and bot_checks.grade(bots, bot_answers)
    participant.qualification_answers = {str(q.pk): answers.get(q.pk) for q in questions}
    for key, option in bot_checks.chosen(bots, bot_answers).items():  # what was asked, picked
        participant.qualification_answers[f"bot:{key}"] = option
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
    participant.save(update_fields=_GRADED)
    return passed


# what grading (and ``late.keep_late_answers``) sets: the UPDATE names these alone
_GRADED = ["qualification_answers", "qualification_late", "status", "qualified_at", "finished_at"]


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
