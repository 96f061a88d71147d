"""Reads for the researcher's study pages (participants, ratings, samples, feedback, slot
counts); the participant's reads, which return only their own items and answers, are
``studies.selectors``."""

from __future__ import annotations

from django.db.models import Avg, Count, Exists, OuterRef, Q, QuerySet, StdDev, Subquery

from annotations.models import (
    Rater,
    RaterExclusion,
    Rating,
    RatingQuerySet,
    Sample,
    SampleQuerySet,
    TextVersion,
    decided_ratings,
    valid_ratings,
)

from . import shown_texts
from .models import AttentionAnswer, Participant, Slot, Study
from .scope import own_ratings


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
    """Participants with progress, attention-check result and whether their ratings count
    (with the active exclusion's reason)."""
    active = RaterExclusion.objects.filter(rater=OuterRef("rater_id"), revoked_at__isnull=True)
    done = study.activity_def.answers  # ratings, or an activity's own answers (texts)
    return (
        study.participants.select_related("rater", "list_slot__list")  # a list study's place
        .annotate(
            n_items=Count("slots", distinct=True) + Count("attention_answers", distinct=True),
            n_rated=Count(done, distinct=True),
            n_checks=Count(
                "attention_answers",
                filter=Q(attention_answers__passed__isnull=False),
                distinct=True,
            ),
            n_failed=Count(
                "attention_answers", filter=Q(attention_answers__passed=False), distinct=True
            ),
            exclusion_reason=Subquery(active.values("reason")[:1]),
            exclusion_source=Subquery(active.values("source")[:1]),
        )
        .annotate(is_excluded=Exists(active))
        .order_by("-started_at")
    )


def attention_failures(study: Study) -> QuerySet[AttentionAnswer]:
    return (
        AttentionAnswer.objects.filter(participant__study=study, passed=False)
        .select_related("participant__rater", "question")
        .order_by("-answered_at")
    )


def study_ratings(study: Study) -> RatingQuerySet:
    """The ratings given in this study (the rule: :func:`studies.scope.own_ratings`)."""
    return Rating.objects.filter(own_ratings(study.pk))


def study_samples_with_stats(study: Study) -> SampleQuerySet:
    """The study's samples with ``n_ratings``/``mean``/``sd``/``n_nonsensical`` over the
    study's own valid ratings and ``n_all`` over every valid rating of the sample (imports
    and other studies too). Excluded raters count in neither, nor do ratings given on a
    text the study no longer shows (``n_outdated`` counts the study's own of those); ``n_all``
    counts the ratings of the reference texts (the benchmark's labels). ``sd`` is the
    database's ``stddev_samp``, shown on the study page only (see ``with_stats``)."""
    valid, mine = valid_ratings("ratings__"), Q(ratings__rater__participant__study=study)
    own = shown_texts.valid_in_study(study, "ratings__") & mine
    scale = own & decided_ratings("ratings__")  # "cannot decide" counted, not averaged
    not_excluded = ~Q(ratings__rater__in=Rater.objects.excluded())
    outdated = not_excluded & mine & ~shown_texts.current_in_study(study, "ratings__")
    return (
        Sample.objects.filter(studies=study)
        .with_related()
        .order_by("position")
        .annotate(
            n_ratings=Count("ratings", filter=own),
            mean=Avg("ratings__score", filter=scale),
            sd=StdDev("ratings__score", filter=scale, sample=True),
            n_nonsensical=Count("ratings", filter=own & Q(ratings__nonsensical=True)),
            n_comments=Count("ratings", filter=own & ~Q(ratings__comment="")),
            n_all=Count("ratings", filter=valid),
            n_outdated=Count("ratings", filter=outdated),
        )
    )


def sample_text_history(sample: Sample) -> list[TextVersion]:
    """The earlier texts of the sample's setup, story and sense, newest first."""
    mine = (
        Q(kind=TextVersion.Kind.SETUP, object_id=sample.story.setup_id)
        | Q(kind=TextVersion.Kind.STORY, object_id=sample.story_id)
        | Q(kind=TextVersion.Kind.SENSE, object_id=sample.sense_id or 0)
    )
    return list(TextVersion.objects.filter(mine).order_by("-replaced_at", "-id"))


def sample_study_ratings(study: Study, sample: Sample) -> RatingQuerySet:
    """The study's ratings of one sample with ``is_current`` (on the texts it shows now)."""
    current = Rating.objects.filter(shown_texts.current_in_study(study), pk=OuterRef("pk"))
    return (
        study_ratings(study)
        .filter(sample=sample)
        .select_related("rater")
        .annotate(is_current=Exists(current))
        .order_by("created_at", "id")
    )


def samples_short(study: Study) -> list[Sample]:
    """Study samples with fewer of the study's own valid ratings than wanted."""
    wanted = study.ratings_per_sample
    return list(study_samples_with_stats(study).filter(n_ratings__lt=wanted))


def study_feedback(study: Study, sample: Sample | None = None) -> QuerySet[Rating]:
    """The study's ratings with a participant comment or the nonsensical flag, newest first
    (optionally of one sample)."""
    qs = study_ratings(study).filter(Q(nonsensical=True) | ~Q(comment=""))
    if sample is not None:
        qs = qs.filter(sample=sample)
    return qs.select_related(
        "rater", "sample__story__setup__homonym", "sample__sense", "sample__split"
    ).order_by("-updated_at")


def check_feedback(study: Study) -> QuerySet[AttentionAnswer]:
    """Attention-check answers with a comment or the nonsensical flag."""
    return (
        AttentionAnswer.objects.filter(participant__study=study)
        .filter(Q(nonsensical=True) | ~Q(comment=""))
        .select_related("participant__rater", "question")
        .order_by("-answered_at")
    )


def slot_counts(study: Study) -> dict[str, int]:
    rows = Slot.objects.filter(study=study).values("status").annotate(n=Count("id"))
    found = {row["status"]: row["n"] for row in rows}
    return {value: found.get(value, 0) for value, _ in Slot.Status.choices}


def batch_capacity(study: Study) -> int:
    """Rough count of free slots (for the researcher page)."""
    return Slot.objects.filter(study=study, status=Slot.Status.FREE).count()


def active_count(study: Study) -> int:
    """Participants who started and have not ended (they may finish after a close)."""
    return study.participants.filter(status__in=Participant.ACTIVE).count()
