"""Reads for the writing pages."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from annotations.models import Sense
from studies.models import Participant, Study

from .models import Ending, EndingSlot, Precontext, Reviewed, SensePair, Sentence, WrittenSetup


def sentences_written(participant: Participant) -> int:
    return Sentence.objects.filter(participant=participant).count()


@dataclass
class EndingRow:
    slot: EndingSlot
    homonym: str
    precontext: str
    sentence: str
    sense: Sense
    other: Sense
    written: bool
    ending: Ending | None = None  # the writer's ending, when written


def ending_rows(participant: Participant | None, slots: list[EndingSlot]) -> list[EndingRow]:
    """The writer's held slots in order with their texts and whether each is written
    (``participant`` None: a preview, nothing written)."""
    ids = [s.pk for s in slots]
    endings = (
        {e.slot_id: e for e in Ending.objects.filter(participant=participant, slot_id__in=ids)}
        if participant
        else {}
    )
    full = EndingSlot.objects.filter(pk__in=ids).select_related(
        "sense",
        "written__setup__homonym",
        "written__sentence__pair__sense_a",
        "written__sentence__pair__sense_b",
    )
    rows = []
    for slot in sorted(full, key=lambda s: s.position or 0):
        pair = slot.written.sentence.pair
        setup = slot.written.setup
        other = pair.sense_b if slot.sense_id == pair.sense_a_id else pair.sense_a
        rows.append(
            EndingRow(
                slot=slot,
                homonym=setup.homonym.form,
                precontext=setup.precontext,
                sentence=setup.sentence,
                sense=slot.sense,
                other=other,
                written=slot.pk in endings,
                ending=endings.get(slot.pk),
            )
        )
    return rows


def pool() -> QuerySet[SensePair]:
    return SensePair.objects.select_related("homonym", "sense_a", "sense_b").annotate(
        n_sentences=Count("sentences", distinct=True), n_draws=Count("draws", distinct=True)
    )


def writing_studies() -> QuerySet[Study]:
    return (
        Study.objects.exclude(activity=Study.Activity.RATING)
        .annotate(
            n_participants=Count("participants", distinct=True),
            n_finished=Count(
                "participants",
                filter=Q(participants__status=Participant.Status.FINISHED),
                distinct=True,
            ),
            n_sentences=Count("participants__sentences", distinct=True),
            n_endings=Count("participants__endings", distinct=True),
        )
        .order_by("-created_at")
    )


def sentences_for_review(decision: str = "") -> QuerySet[Sentence]:
    qs = Sentence.objects.select_related(
        "pair__homonym",
        "pair__sense_a",
        "pair__sense_b",
        "draw__pair__sense_a",
        "draw__pair__sense_b",
        "participant__study",
        "participant__rater",
    )
    qs = qs.annotate(
        has_setup=Exists(WrittenSetup.objects.filter(sentence=OuterRef("pk"))),
        n_precontexts=Count("precontexts", filter=Q(precontexts__status=Precontext.Status.DONE)),
    )
    return qs.filter(decision=decision) if decision else qs


def endings_for_review(decision: str = "") -> QuerySet[Ending]:
    qs = Ending.objects.select_related(
        "sense",
        "slot__sense",
        "slot__written__setup__homonym",
        "slot__written__sentence__pair__sense_a",
        "slot__written__sentence__pair__sense_b",
        "participant__study",
        "participant__rater",
    )
    return qs.filter(decision=decision) if decision else qs


def written_setups() -> QuerySet[WrittenSetup]:
    accepted = Q(slots__endings__decision=Reviewed.Decision.ACCEPTED)
    return WrittenSetup.objects.select_related(
        "setup__homonym", "sentence__participant__rater", "precontext"
    ).annotate(
        n_accepted=Count("slots__endings__sense", filter=accepted, distinct=True),
        n_endings=Count("slots__endings", distinct=True),
    )
