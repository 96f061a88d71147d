"""Work that arrives after a time limit: kept with a late flag where possible, explained
where not, never dropped silently (issue 28).

The one rule for "past the limit" stays ``Participant.is_late`` (``deadline``: the brief hold
until the qualification test is passed, then the study's time limit). What this module adds:

* qualification answers sent past the hold are graded and kept
  (``Participant.qualification_late``): the participant goes on while their batch is still
  held and the study's time limit has not passed (``may_go_on``); otherwise they are timed
  out, their answers are kept and the time-up page says it was the hold;
* an item's answer sent just before the study's time limit and arriving after it is saved
  when it comes within ``LATE_ANSWER_SECONDS`` (``answer_in_flight``), and the participant is
  then timed out;
* a writer's text sent past the time limit (the page sends what is typed when the clock
  reaches zero) is saved with ``late`` set when it comes within ``LATE_WORK_MINUTES`` of the
  limit (``accepts_late_work``); the writing services apply it;
* the time-up page's reason and code (``time_up_context``): which limit ended the session,
  what was kept, and the completion code whenever something was kept (the screen-out page
  gives its code to a failed test, late or not).
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from django.utils import timezone

from . import selectors
from .models import Participant, Study
from .study_texts import item_nouns, minutes

# How long after the time limit a writer's text is still saved (marked late): the page sends
# what is typed when its clock reaches zero, which reaches the server seconds later; a tab
# left open for longer is told why its text was not saved.
LATE_WORK_MINUTES = 15
# How long after the time limit an item's answer is still saved: Next pressed while the
# page's clock (which starts when the page arrives, rounded up) still showed time left
# reaches the server a few seconds after the limit. Answers later than this are refused.
LATE_ANSWER_SECONDS = 30


def seconds_left(participant: Participant, now: datetime | None = None) -> int:
    """Seconds until ``Participant.deadline``, rounded up (0 once it has passed): the clock
    on the qualification, rating and writing pages."""
    if not participant.is_active:
        return 0
    left = participant.deadline() - (now or timezone.now())
    return max(0, math.ceil(left.total_seconds()))  # rounded up: zero on the page is past it


def answering_late(participant: Participant) -> bool:
    """Whether qualification answers from ``participant`` are still taken although the hold
    has passed: still before the test (the sweep has not run), or timed out by the hold
    without having answered."""
    if participant.status == Participant.Status.STARTED:
        return True
    return (
        participant.status == Participant.Status.TIMED_OUT
        and participant.qualified_at is None
        and not participant.qualification_answers
    )


def may_go_on(participant: Participant, now: datetime | None = None) -> bool:
    """A participant whose qualification answers came after the hold may still rate or
    write: their batch is still held (not timed out yet) and the study's time limit, which
    counts from consent, has not passed."""
    end = participant.started_at + timedelta(minutes=participant.study.hold_minutes(True))
    return participant.status == Participant.Status.STARTED and (now or timezone.now()) < end


def answer_in_flight(participant: Participant, now: datetime | None = None) -> bool:
    """Whether an item's answer arriving now from a rater past the study's time limit was
    sent before it (within ``LATE_ANSWER_SECONDS``) while their batch is still theirs (no
    sweep has timed them out): it is saved, and then they are timed out
    (``rating_save.item_save``)."""
    if participant.status != Participant.Status.QUALIFIED:
        return False
    grace = timedelta(seconds=LATE_ANSWER_SECONDS)
    return (now or timezone.now()) <= participant.deadline() + grace


def accepts_late_work(participant: Participant, now: datetime | None = None) -> bool:
    """Whether a writer's text sent now is saved (marked late): within
    ``LATE_WORK_MINUTES`` after their deadline (they had qualified; ``deadline`` is then the
    study's time limit, also once timed out)."""
    if participant.qualified_at is None or participant.status not in (
        Participant.Status.QUALIFIED,
        Participant.Status.TIMED_OUT,
    ):
        return False
    grace = timedelta(minutes=LATE_WORK_MINUTES)
    return (now or timezone.now()) <= participant.deadline() + grace


def late_work_refused(participant: Participant, now: datetime | None = None) -> str:
    """Why a writer's text sent now is not saved, in words for the writer."""
    past = ((now or timezone.now()) - participant.deadline()).total_seconds()
    return (
        f"Your text was sent {minutes(max(1, round(past / 60)))} after the time limit for "
        f"this study ({minutes(participant.study.hold_minutes(True))}). Texts sent more than "
        f"{minutes(LATE_WORK_MINUTES)} after the limit are not saved, so this one was not."
    )


def keep_late_answers(participant: Participant, passed: bool) -> None:
    """Qualification answers that came after the hold from a participant who may not go on
    (``may_go_on``): kept and graded (the caller stores the answers). A failed test screens
    them out as on time; a passed one stays timed out, with ``qualified_at`` and
    ``finished_at`` (when the answers came) set, so the time-up page names the hold and
    gives the completion code. The caller saves."""
    now = timezone.now()
    participant.qualification_late = True
    participant.finished_at = now
    if passed:
        participant.qualified_at = now
    else:
        participant.status = Participant.Status.SCREENED_OUT


def _hold_ended(participant: Participant) -> bool:
    """The session ended at the brief hold before the qualification test (not at the study's
    time limit): never qualified, or qualified by answers that came after the hold when
    the batch was gone already (``keep_late_answers``)."""
    if participant.qualified_at is None:
        return True
    return participant.qualification_late and participant.finished_at is not None


def _late_texts(participant: Participant) -> int:
    """A writer's texts saved after the time limit (the activity's answers, as in
    ``selectors.answered_count``)."""
    activity = participant.study.activity_def
    if activity.reserves_batch:
        return 0
    return activity.answers_of(participant).filter(late=True).count()


def time_up_context(study: Study, participant: Participant | None) -> dict:
    """What the time-up page says: which limit ended the session and why, what was kept,
    and the completion code when anything was kept (answers, texts, or qualification
    answers that passed although they came after the hold)."""
    answered = selectors.answered_count(participant) if participant is not None else 0
    hold = participant is not None and _hold_ended(participant)
    passed_late = hold and participant is not None and participant.qualified_at is not None
    code = study.completion_code if answered or passed_late else ""
    return {
        "study": study,
        "minutes": study.hold_minutes(True),
        "hold_minutes": study.hold_minutes(False),
        "hold": hold,
        "answered_test": bool(participant and participant.qualification_answers),
        "passed_late": passed_late,
        "answered": answered,
        "late_texts": _late_texts(participant) if participant is not None else 0,
        "noun": item_nouns(study),
        "code": code,
        "url": study.completion_url(code) if code else "",
        "known": participant is not None,
    }
