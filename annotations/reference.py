"""Reference data: the texts and labels the benchmark exports and scoring use.

A sample's reference text is its setup's, story's and sense's own fields; its reference
labels are the valid ratings given on that text (``Rating.objects.valid()``). A correction
made in a study never changes them (``studies.shown_texts``). Changing them is this module's
confirmed edit: :func:`reference_edit_impact` says beforehand how many samples' labels change
and :func:`reference_texts_edit` refuses unless the caller confirms that number.
:func:`split_label_changes` tells the scoring pages when a split's labels are no longer the
imported ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Count, Q

from .models import Rater, Rating, Sample, valid_ratings
from .signals import reference_texts_changed
from .text_versions import (
    KINDS,
    SAMPLE_PATHS,
    TextEditError,
    TextObject,
    changed_fields,
    reference_set,
    reference_text,
    showing,
    text_objects,
    version_planned,
)


@dataclass(frozen=True)
class Impact:
    """What a reference edit changes: ``samples`` whose reference text changes, ``labels``
    of them whose reference labels change, ``leaving`` ratings that stop counting (of which
    ``imported`` came with a dataset), ``joining`` ratings that start counting (given in a
    study on exactly the new text), and the splits concerned."""

    samples: int = 0
    labels: int = 0
    leaving: int = 0
    imported: int = 0
    joining: int = 0
    splits: tuple[str, ...] = ()


@dataclass
class ReferenceEdit:
    """A done edit: its impact and, per changed object, the samples it touched."""

    impact: Impact
    touched: dict[tuple[str, int], list[int]] = field(default_factory=dict)


def reference_edit_impact(*, sample: Sample, texts: dict[str, str]) -> Impact:
    """What :func:`reference_texts_edit` with these texts would change (nothing is written)."""
    return _impact(text_objects(sample), texts)


def _impact(objects: list[tuple[str, TextObject]], texts: dict[str, str]) -> Impact:
    # the version each changed object would get: None is a fresh number nobody rated on
    planned: dict[tuple[str, int], int | None] = {}
    touched = Q(pk__in=[])
    for kind, obj in objects:
        changes = changed_fields(kind, reference_text(obj, kind), texts)
        if changes:
            touched |= showing(kind, obj.pk)
            planned[(kind, obj.pk)] = version_planned(
                obj, kind, {**reference_text(obj, kind), **changes}
            )
    samples = Sample.objects.filter(touched)
    now, after = {}, {}
    ids_then_versions = [path[n] for n in (0, 1) for path in (SAMPLE_PATHS[k] for k in KINDS)]
    for pk, *ids, v_setup, v_story, v_sense in samples.values_list("pk", *ids_then_versions):
        now[pk] = (v_setup, v_story, v_sense or 1)
        keys = list(zip(KINDS, ids))
        after[pk] = tuple(planned[k] if k in planned else v for k, v in zip(keys, now[pk]))
    leaving, imported, joining = 0, 0, 0
    labelled: set[int] = set()
    ratings = Rating.objects.filter(sample__in=samples).exclude(rater__in=Rater.objects.excluded())
    for sample_id, kind, *versions in ratings.values_list(
        "sample_id", "rater__kind", "setup_version", "story_version", "sense_version"
    ):
        if tuple(versions) == now[sample_id]:
            leaving += 1
            imported += kind == Rater.Kind.IMPORTED
            labelled.add(sample_id)
        elif tuple(versions) == after[sample_id]:
            joining += 1
            labelled.add(sample_id)
    splits = samples.order_by().values_list("split__dataset__name", "split__name").distinct()
    return Impact(
        samples=len(now),
        labels=len(labelled),
        leaving=leaving,
        imported=imported,
        joining=joining,
        splits=tuple(sorted(f"{d}/{s}" for d, s in splits)),
    )


@transaction.atomic
def reference_texts_edit(
    *, sample: Sample, texts: dict[str, str], confirm_labels: int, by=None
) -> ReferenceEdit:
    """Change the reference texts a sample shows (``precontext``, ``sentence``, ``ending``,
    ``gloss``, ``example_sentence``; absent keys stay). Each changed setup, story or sense
    gets a new reference version, the old text is kept, and the ratings of the old text stop
    counting for every sample sharing it: the benchmark's labels change. ``confirm_labels``
    must be the number of samples whose labels change (:func:`reference_edit_impact`'s
    ``labels``, as shown to the person confirming); anything else raises ``TextEditError``
    and nothing is written."""
    objects = text_objects(Sample.objects.get(pk=sample.pk), lock=True)
    impact = _impact(objects, texts)
    if impact.labels != confirm_labels:
        raise TextEditError(
            f"This edit changes the labels of {impact.labels} sample"
            f"{'s' if impact.labels != 1 else ''}, not {confirm_labels}: "
            "review the change again before confirming it."
        )
    done = ReferenceEdit(impact)
    for kind, obj in objects:
        touching = list(Sample.objects.filter(showing(kind, obj.pk)).values_list("pk", flat=True))
        if reference_set(obj, kind, texts, by):
            done.touched[(kind, obj.pk)] = touching
    if done.touched:
        changed = sorted({pk for pks in done.touched.values() for pk in pks})
        reference_texts_changed.send(sender=None, sample_ids=changed)
    return done


@dataclass(frozen=True)
class LabelChanges:
    """How a split's labels differ from their imported state: imported ratings that no
    longer count (``imported_left_out``: their text was changed or their rater excluded) and
    ratings that count without having been imported (``added``, e.g. a study's)."""

    imported_left_out: int = 0
    added: int = 0

    @property
    def differ(self) -> bool:
        return bool(self.imported_left_out or self.added)


def split_label_changes(split_ids: list[int]) -> dict[int, LabelChanges]:
    """:class:`LabelChanges` of each split in ``split_ids`` (one query)."""
    imported = Q(ratings__rater__kind=Rater.Kind.IMPORTED)
    valid = valid_ratings("ratings__")
    rows = (
        Sample.objects.filter(split_id__in=split_ids)
        .order_by()
        .values("split_id")
        .annotate(
            left_out=Count("ratings", filter=imported & ~valid),
            added=Count("ratings", filter=~imported & valid),
        )
    )
    found = {row["split_id"]: LabelChanges(row["left_out"], row["added"]) for row in rows}
    return {pk: found.get(pk, LabelChanges()) for pk in split_ids}


__all__ = [
    "Impact",
    "LabelChanges",
    "ReferenceEdit",
    "TextEditError",
    "reference_edit_impact",
    "reference_texts_edit",
    "split_label_changes",
]
