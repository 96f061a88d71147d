"""Writes that touch annotation data: keyword-only, typed, atomic."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from .models import Rater, RaterExclusion, Sample, Sense, Setup, Story, TextVersion


@transaction.atomic
def rater_exclude(*, rater: Rater, source: str, reason: str, by=None) -> RaterExclusion:
    """Take a rater's ratings out of every aggregate; idempotent while one is active."""
    active = RaterExclusion.objects.filter(rater=rater, revoked_at__isnull=True).first()
    if active:
        return active
    try:
        with transaction.atomic():
            return RaterExclusion.objects.create(
                rater=rater, source=source, reason=reason, created_by=by
            )
    except IntegrityError:  # a concurrent request excluded the rater first
        return RaterExclusion.objects.get(rater=rater, revoked_at__isnull=True)


@transaction.atomic
def rater_include(*, rater: Rater, by=None, reason: str = "") -> int:
    """Bring a rater's ratings back; the exclusion stays on record as revoked (why, when
    ``reason`` is given)."""
    return RaterExclusion.objects.filter(rater=rater, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), revoked_by=by, revoke_reason=reason
    )


class TextEditError(Exception):
    """An edit refused, with a reason a person can read."""


TEXT_FIELDS: dict[str, tuple[str, ...]] = {
    TextVersion.Kind.SETUP: ("precontext", "sentence"),
    TextVersion.Kind.STORY: ("ending",),
    TextVersion.Kind.SENSE: ("gloss", "example_sentence"),
}


def _new_version(obj: Setup | Story | Sense, kind: str, changes: dict[str, str], by) -> bool:
    """Keep ``obj``'s current text as a ``TextVersion`` and write ``changes`` as the next
    version; False when nothing changes."""
    fields = TEXT_FIELDS[kind]
    changes = {k: v for k, v in changes.items() if k in fields and v != getattr(obj, k)}
    if not changes:
        return False
    TextVersion.objects.create(
        kind=kind,
        object_id=obj.pk,
        version=obj.version,
        text={name: getattr(obj, name) for name in fields},
        replaced_by=by,
    )
    for name, value in changes.items():
        setattr(obj, name, value)
    obj.version += 1
    try:
        with transaction.atomic():
            obj.save(update_fields=[*changes, "version"])
    except IntegrityError:
        raise TextEditError(f"Another {kind} already has exactly this text.") from None
    return True


@transaction.atomic
def sample_texts_edit(*, sample: Sample, texts: dict[str, str], by=None) -> list[Sample]:
    """Edit the texts a sample shows (``precontext``, ``sentence``, ``ending``, ``gloss``,
    ``example_sentence``; absent keys stay). Each edited setup, story or sense gets a new
    version and keeps the old text; ratings given on the old one stay, outdated. Returns
    every sample whose shown text changed (a setup or sense is shared by several)."""
    sample = Sample.objects.get(pk=sample.pk)
    # locked, so two edits at once never number the same version twice
    story = Story.objects.select_for_update().get(pk=sample.story_id)
    setup = Setup.objects.select_for_update().get(pk=story.setup_id)
    sense = None
    if sample.sense_id is not None:
        sense = Sense.objects.select_for_update().get(pk=sample.sense_id)
    touched = Q(pk__in=[])
    if _new_version(setup, TextVersion.Kind.SETUP, texts, by):
        touched |= Q(story__setup=setup)
    if _new_version(story, TextVersion.Kind.STORY, texts, by):
        touched |= Q(story=story)
    if sense is not None and _new_version(sense, TextVersion.Kind.SENSE, texts, by):
        touched |= Q(sense=sense)
    return list(Sample.objects.filter(touched).order_by("id"))
