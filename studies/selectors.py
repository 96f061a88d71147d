"""Reads for study pages. Participant reads return only the participant's own items and
answers: no means, no other raters' answers, no model scores."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q, QuerySet

from annotations.models import Rater, Rating, Sample

from .models import AttentionAnswer, Participant, Slot, Study


@dataclass
class Item:
    """One item of a batch as the participant sees it; checks look exactly like samples."""

    position: int
    homonym: str
    precontext: str
    sentence: str
    ending: str
    meaning: str
    example_sentence: str
    score: int | None
    nonsensical: bool
    comment: str
    started_at: datetime | None

    @property
    def answered(self) -> bool:
        return self.score is not None


def batch_items(participant: Participant) -> list[Item]:
    """The participant's batch in order, with their own answers (3 queries)."""
    slots = (
        Slot.objects.filter(participant=participant)
        .exclude(position=None)
        .select_related("sample__story__setup__homonym", "sample__sense")
    )
    ratings = {
        r.sample_id: r
        for r in Rating.objects.filter(
            rater_id=participant.rater_id, sample_id__in=[s.sample_id for s in slots]
        )
    }
    items = [_sample_item(slot, ratings.get(slot.sample_id)) for slot in slots]
    checks = AttentionAnswer.objects.filter(participant=participant).select_related("question")
    items += [_check_item(check) for check in checks]
    return sorted(items, key=lambda item: item.position)


def _sample_item(slot: Slot, rating: Rating | None) -> Item:
    sample = slot.sample
    setup = sample.story.setup
    return Item(
        position=slot.position,
        homonym=setup.homonym.form,
        precontext=setup.precontext,
        sentence=setup.sentence,
        ending=sample.story.ending,
        meaning=sample.sense.gloss,
        example_sentence=sample.sense.example_sentence,
        score=rating.score if rating else None,
        nonsensical=rating.nonsensical if rating else False,
        comment=rating.comment if rating else "",
        started_at=rating.started_at if rating else None,
    )


def _check_item(check: AttentionAnswer) -> Item:
    q = check.question
    return Item(
        position=check.position,
        homonym=q.homonym,
        precontext=q.precontext,
        sentence=q.sentence,
        ending=q.ending,
        meaning=q.meaning,
        example_sentence=q.example_sentence,
        score=check.score,
        nonsensical=check.nonsensical,
        comment=check.comment,
        started_at=check.started_at,
    )


def first_open_position(items: list[Item]) -> int | None:
    return next((item.position for item in items if not item.answered), None)


# --- researcher reads ------------------------------------------------------------------


def studies_with_counts() -> QuerySet[Study]:
    return Study.objects.annotate(
        n_samples=Count("samples", distinct=True),
        n_participants=Count("participants", distinct=True),
    )


def participant_counts(study: Study) -> dict[str, int]:
    rows = study.participants.values("status").annotate(n=Count("id"))
    found = {row["status"]: row["n"] for row in rows}
    return {label: found.get(value, 0) for value, label in Participant.Status.choices}


def participants_for(study: Study) -> QuerySet[Participant]:
    """Participants with progress, whether their ratings count, and failed checks."""
    excluded = Rater.objects.excluded().values("pk")
    return (
        study.participants.select_related("rater")
        .annotate(
            n_items=Count("slots", distinct=True) + Count("attention_answers", distinct=True),
            n_rated=Count("rater__ratings", distinct=True),
            n_failed=Count(
                "attention_answers", filter=Q(attention_answers__passed=False), distinct=True
            ),
        )
        .annotate(is_excluded=Q(rater__in=excluded))
        .order_by("-started_at")
    )


def attention_failures(study: Study) -> QuerySet[AttentionAnswer]:
    return (
        AttentionAnswer.objects.filter(participant__study=study, passed=False)
        .select_related("participant__rater", "question")
        .order_by("-answered_at")
    )


def study_samples_with_stats(study: Study) -> QuerySet[Sample]:
    """The study's samples with valid-rating stats (excluded raters leave the mean/SD)."""
    return Sample.objects.filter(studies=study).with_related().order_by("position").with_stats()


def samples_short(study: Study) -> list[Sample]:
    """Study samples that still have fewer valid ratings than wanted."""
    wanted = study.ratings_per_sample
    return list(study_samples_with_stats(study).filter(n_ratings__lt=wanted))


def slot_counts(study: Study) -> dict[str, int]:
    rows = Slot.objects.filter(study=study).values("status").annotate(n=Count("id"))
    found = {row["status"]: row["n"] for row in rows}
    return {value: found.get(value, 0) for value, _ in Slot.Status.choices}


def batch_capacity(study: Study) -> int:
    """Rough count of free slots (for the researcher page)."""
    return Slot.objects.filter(study=study, status=Slot.Status.FREE).count()
