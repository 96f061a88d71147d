"""Writes for the writing pipeline: keyword-only, typed, atomic.

Pool: ``pair_add``, ``pair_flag``, ``pool_import`` (in ``pool``, re-exported here).
Studies: ``writing_study_create`` (a study whose activity is writing sentences or endings,
on the studies machinery). Writers:
``draw_current``, ``draw_skip``, ``sentence_submit``, ``ending_slots_hold``,
``ending_submit``. The researchers' review and the steps to setups, stories and a rating
study are in ``review``. Views call exactly one write.
"""

from __future__ import annotations

import random

from django.db import transaction
from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone

from studies import late, locks
from studies import services as study_services
from studies.models import Participant, Study

from . import defaults, rules
from .errors import Refused as Refused
from .errors import TooLate as TooLate
from .errors import WritingError as WritingError
from .models import (
    Draw,
    Ending,
    EndingEdit,
    EndingSlot,
    Reviewed,
    SensePair,
    Sentence,
    WrittenSetup,
)
from .pool import pair_add as pair_add
from .pool import pair_flag as pair_flag
from .pool import pair_of as pair_of
from .pool import pool_import as pool_import

# --- writing studies -----------------------------------------------------------------------


@transaction.atomic
def writing_study_create(
    *,
    activity: str,
    title: str,
    slug: str,
    by=None,
    setups: list[WrittenSetup] | None = None,
    **fields,
) -> Study:
    """A draft study whose activity is ``sentences`` or ``endings`` with the paper's guidelines and
    the writing variant of the qualification test. An ending study gets one slot per
    (setup, sense) for ``setups``."""
    if activity not in (Study.Activity.SENTENCES, Study.Activity.ENDINGS):
        raise WritingError("A writing study writes sentences or endings.")
    sentences = activity == Study.Activity.SENTENCES
    fields.setdefault(
        "guidelines",
        defaults.SENTENCE_GUIDELINES if sentences else defaults.ENDING_GUIDELINES,
    )
    fields.setdefault(
        "samples_per_participant",
        defaults.SENTENCES_PER_WRITER if sentences else defaults.ENDINGS_PER_WRITER,
    )
    fields.update(activity=activity, attention_checks_per_batch=0, questions=defaults.QUALIFICATION)
    study = study_services.study_create(title=title, slug=slug, samples=[], by=by, **fields)
    if not sentences:
        for written in setups or []:
            pair = written.sentence.pair
            for sense in (pair.sense_a, pair.sense_b):
                EndingSlot.objects.create(study=study, written=written, sense=sense)
    return study


def _active(participant: Participant) -> Participant:
    """The participant, locked, if they may still write; ``WritingError`` otherwise (past
    the limit: ``Participant.is_late``, the rule of every participant page)."""
    locked = locks.locked(participant)
    if locked.is_late():
        raise WritingError("Your time for this study has run out.")
    if locked.status != Participant.Status.QUALIFIED:
        raise WritingError("This session can no longer be changed.")
    return locked


def _writer(participant: Participant) -> tuple[Participant, bool]:
    """(the participant locked, whether their text is late) for a text sent now: in time,
    or within ``studies.late.LATE_WORK_MINUTES`` after the limit (the page sends what is
    typed when its clock reaches zero); ``TooLate`` past that, ``WritingError`` for anyone
    else."""
    locked = locks.locked(participant)
    late_now = locked.is_late() or locked.status == Participant.Status.TIMED_OUT
    if not late_now:
        return _active(locked), False
    if not late.accepts_late_work(locked):
        raise TooLate(late.late_work_refused(locked))
    return locked, True


def _time_out(participant: Participant) -> None:
    """A writer whose late text was taken (or refused) writes no more: timed out, so every
    page sends them to the time-up page with their code (their ending slots are free again
    for others, ``_free_slots``)."""
    Participant.objects.filter(pk=participant.pk, status__in=Participant.ACTIVE).update(
        status=Participant.Status.TIMED_OUT
    )
    participant.status = Participant.Status.TIMED_OUT


def _finish(participant: Participant) -> None:
    participant.status = Participant.Status.FINISHED
    participant.finished_at = timezone.now()
    participant.save(update_fields=["status", "finished_at"])


# --- sentence writers ----------------------------------------------------------------------


def _new_draw(participant: Participant, rng: random.Random | None = None) -> Draw:
    """A pool entry this writer has not been shown yet (the least written first), or, when
    they have seen them all, one of those they skipped."""
    rng = rng or random.Random()
    seen = Draw.objects.filter(participant=participant).values("pair_id")
    pool = SensePair.objects.filter(excluded=False)
    fresh = pool.exclude(id__in=seen).annotate(n=Count("sentences")).order_by("n")
    candidates = list(fresh.values_list("id", "n")[:50])
    if candidates:
        low = candidates[0][1]
        pair_id = rng.choice([pk for pk, n in candidates if n == low])
    else:
        skipped = list(
            Draw.objects.filter(participant=participant, status=Draw.Status.SKIPPED)
            .exclude(pair__excluded=True)
            .values_list("pair_id", flat=True)
        )
        if not skipped:
            raise WritingError("There are no more words to write about.")
        pair_id = rng.choice(skipped)
    return Draw.objects.create(participant=participant, pair_id=pair_id)


@transaction.atomic
def draw_current(*, participant: Participant) -> Draw:
    """The word this writer is shown now: the open draw, or a new one."""
    participant = _active(participant)
    draw = Draw.objects.filter(participant=participant, status=Draw.Status.OPEN).first()
    return draw or _new_draw(participant)


@transaction.atomic
def draw_skip(*, participant: Participant, draw_id: int) -> Draw:
    """ "A different word, please!": close the shown draw as skipped and draw another.
    A repeated click (a stale ``draw_id``) changes nothing."""
    participant = _active(participant)
    closed = Draw.objects.filter(
        pk=draw_id, participant=participant, status=Draw.Status.OPEN
    ).update(status=Draw.Status.SKIPPED, closed_at=timezone.now())
    current = Draw.objects.filter(participant=participant, status=Draw.Status.OPEN).first()
    if current:
        return current
    if not closed:
        raise WritingError("That word is no longer shown.")
    return _new_draw(participant)


def sentence_submit(*, participant: Participant, draw_id: int, text: str) -> Sentence:
    """Save a sentence for the shown word (finishing the writer after the last). Raises
    ``Refused`` (the text is kept as the draw's draft, committed) when a rule is broken,
    ``WritingError`` when the draw is not the shown one or the writer may not write."""
    text = text.strip()
    with transaction.atomic():
        participant, late_text = _writer(participant)
        draw = locks.own_row(Draw.objects.select_related("pair__homonym"), participant, pk=draw_id)
        if draw is None:
            raise WritingError("That word is not shown to you.")
        if draw.status == Draw.Status.WRITTEN:
            if draw.sentence.text != text:  # sent again from a page the browser went back to
                raise Refused(
                    f"Your sentence for \u201c{draw.pair.homonym.form}\u201d was already saved "
                    "as you first sent it; the changed text was not saved (written sentences "
                    "cannot be changed)."
                )
            return draw.sentence  # the same sentence sent twice
        if draw.status != Draw.Status.OPEN:
            raise WritingError("That word is no longer shown.")
        problem = rules.sentence_problem(text, draw.pair.homonym.form)
        if problem is None:
            return _sentence_save(participant, draw, text, late_text)
        Draw.objects.filter(pk=draw.pk).update(draft=text[:2000])
        if late_text:
            _time_out(participant)
    raise _refused(problem, late_text)


def _refused(problem: str, late_text: bool) -> WritingError:
    """``Refused`` (the page shows the text again to fix), or for a text sent after the
    time limit ``TooLate`` saying why it was not saved (the draft keeps it)."""
    if not late_text:
        return Refused(problem)
    return TooLate(
        f"Your last text was sent after the time limit and breaks a rule, so it was not "
        f"saved (it is kept as a draft for the researchers): {problem}"
    )


def _sentence_save(participant: Participant, draw: Draw, text: str, late_text: bool) -> Sentence:
    sentence = Sentence.objects.create(
        participant=participant, draw=draw, pair=draw.pair, text=text, late=late_text
    )
    draw.status, draw.closed_at, draw.draft = Draw.Status.WRITTEN, timezone.now(), ""
    draw.save(update_fields=["status", "closed_at", "draft"])
    written = Sentence.objects.filter(participant=participant).count()
    if written >= participant.study.samples_per_participant:
        _finish(participant)
    elif late_text:
        _time_out(participant)
    return sentence


# --- ending writers ------------------------------------------------------------------------


def _free_slots(study: Study):
    gone = (Participant.Status.TIMED_OUT, Participant.Status.SCREENED_OUT)
    has_ending = Ending.objects.filter(slot=OuterRef("pk")).exclude(
        decision=Reviewed.Decision.REJECTED
    )
    return (
        EndingSlot.objects.filter(study=study)
        .filter(Q(participant__isnull=True) | Q(participant__status__in=gone))
        .exclude(Exists(has_ending))
    )


@transaction.atomic
def ending_slots_hold(*, participant: Participant) -> list[EndingSlot]:
    """The endings this writer is to write, in order: held on the first visit (up to
    ``samples_per_participant``, different setups first), the same ones on every later
    visit."""
    participant = _active(participant)
    held = list(EndingSlot.objects.filter(participant=participant).order_by("position"))
    if held:
        return held
    want = participant.study.samples_per_participant
    free = list(
        _free_slots(participant.study)
        .order_by("id")
        .select_for_update(of=("self",), skip_locked=True)
    )
    picked: list[EndingSlot] = []
    seen: set[int] = set()
    for slot in free:  # one slot per setup first ...
        if slot.written_id not in seen and len(picked) < want:
            picked.append(slot)
            seen.add(slot.written_id)
    for slot in free:  # ... then the other senses, only when setups run short
        if slot not in picked and len(picked) < want:
            picked.append(slot)
    now = timezone.now()
    position = 0
    for slot in picked:  # compare-and-set: a slot another writer took meanwhile is skipped
        holder = (
            Q(participant__isnull=True)
            if slot.participant_id is None
            else Q(participant_id=slot.participant_id)
        )
        position += EndingSlot.objects.filter(holder, pk=slot.pk).update(
            participant=participant, position=position, reserved_at=now, draft=""
        )
    if not position:
        raise WritingError("There are no stories left to write endings for.")
    return list(EndingSlot.objects.filter(participant=participant).order_by("position"))


def ending_submit(
    *, participant: Participant, slot_id: int, text: str, comment: str = ""
) -> Ending:
    """Save the ending for one of the writer's slots (finishing the writer after the
    last), or change it when the writer went Back to it (``EndingEdit`` keeps what it
    replaced; the same text sent again changes nothing). ``Refused`` (text kept as the
    slot's draft, committed) when it contains the ambiguous word or is empty or too long,
    and (nothing stored) for a change of an ending a researcher has begun to review."""
    text, comment = text.strip(), comment.strip()[:2000]
    with transaction.atomic():
        participant, late_text = _writer(participant)
        slot = locks.own_row(
            EndingSlot.objects.select_related("written__setup__homonym"), participant, pk=slot_id
        )
        if slot is None:
            raise (TooLate if late_text else WritingError)(_not_yours(late_text))
        existing = Ending.objects.filter(slot=slot, participant=participant).first()
        if existing and (existing.text, existing.comment) == (text, comment):
            return existing  # sent twice, or sent again unchanged from the Back page
        if existing and not ending_editable(existing):
            raise Refused("A researcher is already reviewing this ending: it can no longer change.")
        problem = rules.ending_problem(text, slot.written.setup.homonym.form)
        if problem is None and existing:
            return _ending_change(participant, existing, text, comment, late_text)
        if problem is None:
            return _ending_save(participant, slot, text, comment, late_text)
        EndingSlot.objects.filter(pk=slot.pk).update(draft=text[:2000], draft_comment=comment)
        if late_text:
            _time_out(participant)
    raise _refused(problem, late_text)


def ending_editable(ending: Ending) -> bool:
    """Whether the writer may still change ``ending`` (Back, then Next): not before a
    researcher has looked at it (a decision, a clean-up or a story)."""
    return (
        ending.decision == Reviewed.Decision.PENDING
        and ending.story_id is None
        and not ending.cleanups.exists()
    )


def _ending_change(
    participant: Participant, ending: Ending, text: str, comment: str, late_text: bool
) -> Ending:
    """The writer's new text for an ending they wrote before: the old one goes to
    ``EndingEdit``; a change sent late marks the ending late and times the writer out."""
    EndingEdit.objects.create(
        ending=ending, text_before=ending.text, comment_before=ending.comment, late=late_text
    )
    ending.text, ending.comment, ending.late = text, comment, ending.late or late_text
    ending.save(update_fields=["text", "comment", "late"])
    EndingSlot.objects.filter(pk=ending.slot_id).update(draft="", draft_comment="")
    if late_text:
        _time_out(participant)
    return ending


@transaction.atomic
def ending_back(*, participant: Participant, slot_id: int, text: str, comment: str = "") -> int:
    """Figure 3's Back button: the position of the ending before ``slot_id`` in the
    writer's list. What is typed for a slot not written yet is kept as its draft (no rule
    checked); on an ending already written, an unsent change is dropped (Next saves one)."""
    participant = _active(participant)
    slot = locks.own_row(EndingSlot.objects.all(), participant, pk=slot_id)
    if slot is None:
        raise WritingError("That story is not one of yours.")
    if not slot.position:
        raise WritingError("This is your first story: there is none before it.")
    if not Ending.objects.filter(slot=slot, participant=participant).exists():
        EndingSlot.objects.filter(pk=slot.pk).update(
            draft=text.strip()[:2000], draft_comment=comment.strip()[:2000]
        )
    return slot.position - 1


def _not_yours(late_text: bool) -> str:
    if late_text:  # a timed-out writer's slot goes back to the pool
        return (
            "Your ending was sent after the time limit, and the story had already been given "
            "to another writer, so it was not saved."
        )
    return "That story is not one of yours."


def _ending_save(
    participant: Participant, slot: EndingSlot, text: str, comment: str, late_text: bool
) -> Ending:
    ending = Ending.objects.create(
        slot=slot,
        sense_id=slot.sense_id,
        participant=participant,
        text=text,
        comment=comment,
        late=late_text,
    )
    EndingSlot.objects.filter(pk=slot.pk).update(draft="", draft_comment="")
    left = EndingSlot.objects.filter(participant=participant).exclude(
        Exists(Ending.objects.filter(slot=OuterRef("pk"), participant=participant))
    )
    if not left.exists():
        _finish(participant)
    elif late_text:
        _time_out(participant)
    return ending
