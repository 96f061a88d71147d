"""Text corrections: a study's own version of a text, or a confirmed change of the reference
text (what the benchmark exports and scores use). Which version a study shows is read by
:mod:`studies.shown_texts`."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.db.models import Q

from annotations.data_versions import data_changed
from annotations.models import Sample
from annotations.reference import ReferenceEdit, reference_texts_edit
from annotations.text_versions import (
    TextEditError,
    changed_fields,
    showing,
    text_at,
    text_objects,
    version_for,
)

from . import lists
from .assignment import slot_replace
from .models import Slot, Study, StudyText
from .services import StudyError
from .shown_texts import shown_versions_of


@transaction.atomic
def sample_texts_correct(
    *, study: Study, sample: Sample, texts: dict[str, str], by=None
) -> list[Sample]:
    """Correct the texts ``study`` shows for ``sample`` (``precontext``, ``sentence``,
    ``ending``, ``gloss``, ``example_sentence``; absent keys stay). Each corrected setup,
    story or sense gets a version of the study's own (shared with any study that made the
    same correction; the reference text itself when the correction undoes an earlier one);
    the reference texts and labels do not change. The study's ratings of the text it showed
    before are outdated for the study and its samples re-queued if it is not closed.
    Returns the study's samples whose shown text changed (a setup or sense is shared by
    several). Raises ``StudyError``."""
    sample = Sample.objects.with_related().get(pk=sample.pk)
    if not Sample.objects.filter(pk=sample.pk, studies=study).exists():
        raise StudyError("This sample is not one of the study's.")
    versions = shown_versions_of(study, sample)
    touched = Q(pk__in=[])
    for kind, obj in text_objects(sample, lock=True):
        before = text_at(obj, kind, versions[kind])
        changes = changed_fields(kind, before, texts)
        if not changes:
            continue
        version = version_for(obj=obj, kind=kind, text={**before, **changes}, by=by)
        pin = StudyText.objects.filter(study=study, kind=kind, object_id=obj.pk)
        if version == obj.version:
            pin.delete()  # back on the reference text
        else:
            StudyText.objects.update_or_create(
                study=study, kind=kind, object_id=obj.pk, defaults={"version": version}
            )
        touched |= showing(kind, obj.pk)
    changed = list(Sample.objects.filter(touched, studies=study).order_by("id"))
    if changed:
        data_changed(kind=study.task_kind)
    slots_outdate([s.pk for s in changed], [study.pk])
    return changed


@transaction.atomic
def sample_reference_edit(
    *, sample: Sample, texts: dict[str, str], confirm_labels: int, by=None
) -> ReferenceEdit:
    """Change the reference texts of ``sample`` (``annotations.reference``: the benchmark's
    labels change; ``confirm_labels`` is the number of samples whose labels change, as the
    researcher confirmed it) and re-queue, in every study not closed that shows the
    reference text of a changed object, the samples that share it. Studies with their own
    version of that object keep it. Raises ``StudyError``."""
    try:
        done = reference_texts_edit(
            sample=sample, texts=texts, confirm_labels=confirm_labels, by=by
        )
    except TextEditError as exc:
        raise StudyError(str(exc)) from None
    for (kind, object_id), sample_ids in done.touched.items():
        pinned = StudyText.objects.filter(kind=kind, object_id=object_id).values("study_id")
        studies = Study.objects.filter(samples__in=sample_ids).exclude(pk__in=pinned)
        slots_outdate(sample_ids, list(studies.values_list("pk", flat=True).distinct()))
    return done


def slots_outdate(sample_ids: Sequence[int], study_ids: Sequence[int]) -> int:
    """The texts these samples show in these studies changed: in each not closed, every rated
    slot holds a rating of an old text, so it becomes outdated and a fresh free slot re-queues
    the sample (reserved slots stay: their participant sees the new text). Returns the count."""
    rated = Slot.objects.filter(status=Slot.Status.DONE, study_id__in=list(study_ids))
    rated = rated.filter(sample_id__in=list(sample_ids)).exclude(study__status="closed")
    held = list(rated.select_for_update())
    Slot.objects.filter(id__in=[s.id for s in held]).update(status=Slot.Status.OUTDATED)
    by_lists = lists.list_study_ids(study_ids)  # a list is never re-offered sample by sample
    for slot in held:
        if slot.study_id not in by_lists:
            slot_replace(slot)
    return len(held)
